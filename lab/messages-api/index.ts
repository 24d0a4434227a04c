export { breakpointPrefixes, documentedCacheMinimum, startMessagesApi, type MessagesApi, type MessagesApiOptions, type RecordedRequest, type RequestBody, type Script, type ScriptFn, type WireBlock, type WireMessage } from './server';
export { reply, type ErrorOptions, type MessageOptions, type Reply, type UsageFields } from './replies';
export { formFillingModel, labFormFillingModel, decideForPage, normalise, type CaseFields, type FormFillingDecision, type FormFillingOptions, type LabCase } from './form-filling-model';
export { latestPage, parseControlLine, parsePage, textsOf, untrustedBlocks, type PageControl, type PageView, OPEN, CLOSE } from './page-reader';
