import type { AnyCoreTool } from '../core-tool';
import { crashSymbolicateTool } from './crash-symbolicate-tool';
import { symbolListTool } from './symbol-list-tool';

/** symbol.list and crash.symbolicate, as the core serves them. */
export const SYMBOL_TOOLS: readonly AnyCoreTool[] = [symbolListTool, crashSymbolicateTool];
