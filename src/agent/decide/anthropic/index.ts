export { AnthropicPlanner, type AnthropicPlannerOptions } from './planner';
export { AnthropicConfigError, type AnthropicOptions, DEFAULT_MODEL, loadAnthropicConfig } from './config';
export { DEFAULT_PRICES, priceFor } from './prices';
export { actOnPageJsonSchema, parseActOnPage } from './act-on-page';
export { openingTurn, SYSTEM_PROMPT } from './prompt';
export { neutraliseDelimiters, pageBlock, pageSummary, renderControl, renderObservation } from './page-block';
export { screenshotReason } from './screenshot-policy';
export { digest } from './digest';
