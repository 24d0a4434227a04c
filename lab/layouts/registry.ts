import type { LabLayout } from '../variants';
import { ORIGINAL_LAYOUT } from './original/layout';
import { REDESIGNED_LAYOUT } from './redesigned/layout';
import type { Layout } from './view';

export const LAYOUTS: Readonly<Record<LabLayout, Layout>> = { original: ORIGINAL_LAYOUT, redesigned: REDESIGNED_LAYOUT };
