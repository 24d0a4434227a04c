export { AnthropicPlanner, type AnthropicPlannerOptions } from './planner';
export {
  AnthropicConfig,
  AnthropicConfigError,
  type AnthropicOptions,
  DEFAULT_MODEL,
  defaultToolChoice,
  loadAnthropicConfig,
  ToolChoiceMode,
} from './config';
export { DEFAULT_PRICES, ModelPrice, PriceTable, priceFor, usageOf } from './prices';
export { ActOnPageInput, actOnPageJsonSchema, actOnPageTool, parseActOnPage } from './act-on-page';
export { ACT_ON_PAGE, openingTurn, SYSTEM_PROMPT } from './prompt';
export { neutraliseDelimiters, pageBlock, pageSummary, renderControl, renderObservation, UNTRUSTED_CLOSE, UNTRUSTED_OPEN } from './page-block';
export { type ScreenshotReason, screenshotReason } from './screenshot-policy';
export { digest } from './digest';
