import { AnthropicPlanner } from '../../src/agent/decide/anthropic';
import type { CaseFile } from '../../src/shared/case-file';
import type { PortalProfile } from '../../src/shared/portal-profile';
import { labFormFillingModel, startMessagesApi, type MessagesApi } from '../messages-api';

/**
 * The Claude planner of a lab run, as the product builds it (the real `@anthropic-ai/sdk`, the
 * planner's own prompts, screenshots and tool schema), pointed at the lab's loopback Messages API,
 * whose scripted model fills the lab's forms from the case file. The server answers at once: what
 * a run spends on the model path here is our own work (pictures, prompts, the SDK's round trip),
 * never a simulated model's latency. Used where the bench and the eval suites compare a run that
 * asks the model with one that follows a learned route.
 */
export interface LoopbackClaude {
  planner: AnthropicPlanner;
  /** Requests the planner sent to the Messages API so far. */
  readonly calls: number;
  close(): Promise<void>;
}

export async function startLoopbackClaude(caseFile: CaseFile, profile: PortalProfile): Promise<LoopbackClaude> {
  const pattern = profile.confirmation.applicationNumberPattern;
  const api: MessagesApi = await startMessagesApi(labFormFillingModel(caseFile, new RegExp(`\\b(${pattern})\\b`)));
  const planner = new AnthropicPlanner({ env: { ANTHROPIC_API_KEY: 'sk-ant-loopback-lab', ANTHROPIC_BASE_URL: api.url } });
  return {
    planner,
    get calls() {
      return api.requests.length;
    },
    close: () => api.close(),
  };
}
