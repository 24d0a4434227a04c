import type { FieldValues, PortalSpec, SectionSpec } from '../forms/spec';
import type { FieldError } from '../forms/validate';
import type { Html } from '../html';
import type { ApplicationSummary } from '../submissions';
import type { LabLayout } from '../variants';

/** What the layouts render: one interface, two looks (original and redesigned). */

export interface PageFrame {
  portal: PortalSpec;
  title: string;
  main: Html;
  signedInAs: string | null;
  /** Cookie banner, survey dialog: drawn over the page. */
  overlays: Html;
  /** The current section's slug, for the redesigned left nav. */
  sectionNav?: { sections: readonly SectionSpec[]; current: string | null; done: ReadonlySet<string> };
}

export interface SectionView {
  portal: PortalSpec;
  sections: readonly SectionSpec[];
  index: number;
  values: FieldValues;
  errors: FieldError[];
  notice: string | null;
}

export interface ReviewView {
  portal: PortalSpec;
  sections: readonly SectionSpec[];
  values: FieldValues;
  errors: FieldError[];
  notice: string | null;
}

export interface DashboardView {
  portal: PortalSpec;
  clientId: string;
  draft: { draftId: string; savedAt: string } | null;
  notice: string | null;
  applications: number;
}

export interface Layout {
  readonly id: LabLayout;
  document(frame: PageFrame): string;
  section(view: SectionView): Html;
  review(view: ReviewView): Html;
  dashboard(view: DashboardView): Html;
  applications(portal: PortalSpec, list: ApplicationSummary[], draft: { draftId: string; savedAt: string } | null): Html;
  confirmation(portal: PortalSpec, applicationNumber: string, reference: string): Html;
}
