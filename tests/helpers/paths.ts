// Paths of the example recording and the repository root for tests.
import path from 'node:path';
import { fixturePath } from './fixture';

/** Repository root. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
/** The AgentNet example episode (read-only). */
export const FIXTURE_DIR = fixturePath('agentnet-raw/win10-display-settings');
/** Relative name of the AgentNet example episode for copyFixture(). */
export const FIXTURE_REL = 'agentnet-raw/win10-display-settings';
