/** The portal lab: realistic government and utility portals, served on loopback for demos and tests. */
export { startLab, type LabOptions } from './server';
export type { Lab } from './lab';
export { labAccount, type LabAccount } from './accounts';
export { bindLabProfile } from './profile';
export { compareSubmission, type FieldMismatch } from './compare';
export { describeLab } from './describe';
export { LabVariant, DEFAULT_VARIANT, type LabVariantInput, type LabLayout } from './variants';
export { PORTAL_IDS, PORTAL_HOSTS, PHONE_HOST, CONTROL_HOST, CAPTCHA_HOST, type PortalId } from './hosts';
export { CONTROL_TOKEN_HEADER } from './control-api';
export type { Submission, SubmissionFilter, ApplicationSummary } from './submissions';
export type { AttackerRequest, RequestLogEntry } from './traffic';
export { PORTALS } from './portals/registry';
export type { PortalSpec, FieldSpec, SectionSpec, FieldValues } from './forms/spec';
export { OTP_TTL_MS } from './otp';
