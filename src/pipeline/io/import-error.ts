// Coded errors for rejected import folders: every message names the file, the line and the problem.
import { AppError } from '../../shared/errors';

/** Where a problem was found: a file inside the imported folder and, when known, a line. */
export type SourceLocation = {
  /** File name relative to the imported folder (or a pattern such as `*.mp4`). */
  file: string;
  /** 1-based line number; absent for whole-file problems. */
  line?: number;
};

/** Formats `<file>:<line>: <problem>`, or `<file>: <problem>` without a line. */
export function formatImportProblem(loc: SourceLocation, problem: string): string {
  return loc.line === undefined ? `${loc.file}: ${problem}` : `${loc.file}:${loc.line}: ${problem}`;
}

/** Builds the `IMPORT_INVALID` error for a problem at `loc` (details: file, line, problem). */
export function importInvalid(loc: SourceLocation, problem: string): AppError {
  return new AppError('IMPORT_INVALID', formatImportProblem(loc, problem), {
    file: loc.file,
    ...(loc.line === undefined ? {} : { line: loc.line }),
    problem,
  });
}

/** Builds the `LEGACY_ENCRYPTED_UNSUPPORTED` error for an upstream "encrypted" file. */
export function legacyEncrypted(file: string): AppError {
  const problem =
    'legacy encrypted file (first line "encrypted") is not supported; ' +
    'decrypt the folder with the AgentNet Tool first';
  return new AppError('LEGACY_ENCRYPTED_UNSUPPORTED', formatImportProblem({ file }, problem), {
    file,
    problem,
  });
}
