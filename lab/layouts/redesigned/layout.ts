import type { Layout } from '../view';
import { redesignedDocument } from './chrome';
import { redesignedApplications, redesignedConfirmation, redesignedDashboard, redesignedReview } from './pages';
import { redesignedSection } from './section';

export const REDESIGNED_LAYOUT: Layout = {
  id: 'redesigned',
  document: redesignedDocument,
  section: redesignedSection,
  review: redesignedReview,
  dashboard: redesignedDashboard,
  applications: (portal, list, draft) => redesignedApplications(portal.wording.redesigned.applicationsLink, list, draft),
  confirmation: (_portal, number, reference) => redesignedConfirmation(number, reference),
};
