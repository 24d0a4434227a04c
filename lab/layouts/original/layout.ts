import type { Layout } from '../view';
import { originalDocument } from './chrome';
import { originalApplications, originalConfirmation, originalDashboard, originalReview } from './pages';
import { originalSection } from './section';

export const ORIGINAL_LAYOUT: Layout = {
  id: 'original',
  document: originalDocument,
  section: originalSection,
  review: originalReview,
  dashboard: originalDashboard,
  applications: (_portal, list, draft) => originalApplications(list, draft),
  confirmation: (_portal, number, reference) => originalConfirmation(number, reference),
};
