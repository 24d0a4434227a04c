// The audit's lines use the same words as the run: one describeAction, in src/shared.
export { describeAction } from '../shared/describe-action';
