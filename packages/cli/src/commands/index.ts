import { breakpadCommand } from './breakpad';
import type { Command } from './command';
import { dsymCommand } from './dsym';
import { ndkCommand } from './ndk';
import { proguardCommand } from './proguard';
import { reactNativeCommand } from './react-native';
import { sourcemapsCommand } from './sourcemaps';

/** Every upload command, in the order --help lists them. */
export const COMMANDS: readonly Command[] = [
  dsymCommand,
  proguardCommand,
  ndkCommand,
  breakpadCommand,
  sourcemapsCommand,
  reactNativeCommand,
];

export type { Command, OptionSpec } from './command';
