// The library's saved upload defaults (target and annotator; never credentials).
import type { Db } from '../../store';
import {
  UPLOAD_SETTING_KEYS,
  getUploadSetting,
  setUploadSetting,
} from '../../store/queries/uploads';
import { checkKeySegment, type UploadDefaults, type UploadTarget } from './target';

// Reads the saved upload defaults (empty when none).
export function loadUploadDefaults(db: Db): UploadDefaults {
  const v = getUploadSetting(db, UPLOAD_SETTING_KEYS.target);
  return v && typeof v === 'object' ? v : {};
}

// Saves a target and annotator as the defaults of later uploads.
export function saveUploadDefaults(db: Db, target: UploadTarget, annotator: string | null): void {
  const value: UploadDefaults = {
    bucket: target.bucket,
    prefix: target.prefix,
    region: target.region,
    forcePathStyle: target.forcePathStyle,
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    ...(annotator ? { annotator: checkKeySegment('Annotator', annotator) } : {}),
  };
  setUploadSetting(db, UPLOAD_SETTING_KEYS.target, value);
}
