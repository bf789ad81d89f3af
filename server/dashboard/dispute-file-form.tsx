import { MAX_EVIDENCE_FILES } from '../commands/dispute-answers';
import type { FieldError } from '../http/problem';
import { DOCUMENT_FORMATS, MAX_DOCUMENT_BYTES } from '../schemas/client-objects';
import type { DashboardText } from './i18n';
import { Csrf } from './layout';

// A dispute's "Add a file" form (multipart, no script): files checked by the API's own
// rules (commands/dispute-answers.ts), and the API's refusal told in words on the field.

export type FileError = 'missing' | 'empty' | 'type' | 'too_large' | 'too_many';

/** What a refusal of POST /v1/dispute/{id}/evidence/'s files means to the merchant. */
export function fileErrorOf(refusal: { status: number; errors: FieldError[] }): FileError {
  if (refusal.status === 413) return 'too_large';
  const path = refusal.errors[0]?.path ?? '';
  if (path === 'files') return 'too_many';
  return path.endsWith('.data') ? 'empty' : 'type';
}

const MIB = MAX_DOCUMENT_BYTES / 1024 / 1024;
const ACCEPT = [...Object.keys(DOCUMENT_FORMATS), ...Object.values(DOCUMENT_FORMATS).flat()].join(',');

export function DisputeFileForm({ text, csrf, action, error }: { text: DashboardText; csrf: string; action: string; error: FileError | undefined }) {
  const { t } = text;
  const limits = { count: MAX_EVIDENCE_FILES, mib: MIB };
  return (
    <form method="post" action={action} enctype="multipart/form-data" class="card" aria-labelledby="dispute-add-file">
      <h3 id="dispute-add-file">{t('dsp.addFile')}</h3>
      <Csrf token={csrf} />
      {error && (
        <p class="notice error" role="alert">
          {t('dsp.fileRefused')}
        </p>
      )}
      <div class="field">
        <label for="ev-file">{t('dsp.fileField')}</label>
        <input id="ev-file" name="file" type="file" multiple accept={ACCEPT} aria-invalid={error ? 'true' : undefined} aria-describedby={`ev-file-hint${error ? ' ev-file-error' : ''}`} />
        <p class="hint" id="ev-file-hint">
          {t('dsp.fileHint', limits)}
        </p>
        {error && (
          <p class="field-error" id="ev-file-error" data-testid="error-file">
            {t(`dsp.fileError.${error}`, limits)}
          </p>
        )}
      </div>
      <button type="submit">{t('dsp.fileUpload')}</button>
    </form>
  );
}
