export { type CopilotAppDeps, createCopilotApp } from './app';
export { type CopilotConfig, type LlmConfig, loadCopilotConfig } from './config';
export { createChatTranslator, type Translation, type Translator } from './llm/translator';
export { type WiredCopilot, wireCopilot } from './wiring';
