// Where the right to write comes from. The CLI uses the standard AWS chain (environment
// variables, then the shared config/credentials files and AWS_PROFILE); the desktop app passes
// credentials it decrypted with Electron's safeStorage (secret-store.ts) or a refreshing provider
// (e.g. short-lived STS credentials from a collection server). A server that instead hands out
// presigned URLs is a different ObjectStore implementation (object-store.ts), not a credential.

/** Access-key credentials. */
export type UploadCredentials = {
  accessKeyId: string;
  secretAccessKey: string;
  /** STS session token, if the credentials are temporary. */
  sessionToken?: string;
  /** When temporary credentials expire (epoch ms); the provider is asked again before that. */
  expiresAtMs?: number;
};

/** How an ObjectStore obtains signing credentials. */
export type UploadAuth =
  /** The AWS SDK default chain: env (AWS_ACCESS_KEY_ID…), then profile files (AWS_PROFILE). */
  | { kind: 'aws-chain'; /** Named profile; default AWS_PROFILE or `default`. */ profile?: string }
  /** Fixed credentials (the desktop app's decrypted secret; tests). */
  | { kind: 'static'; credentials: UploadCredentials }
  /** Credentials fetched (and refreshed) on demand, e.g. from a collection server. */
  | { kind: 'provider'; provide: () => Promise<UploadCredentials> };

// Describes where credentials come from, for messages (never prints a secret).
export function describeAuth(auth: UploadAuth): string {
  switch (auth.kind) {
    case 'aws-chain':
      return auth.profile
        ? `AWS profile "${auth.profile}"`
        : 'the AWS credential chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)';
    case 'static':
      return `access key ${maskKeyId(auth.credentials.accessKeyId)}`;
    case 'provider':
      return 'the configured credential provider';
  }
}

// An access key id with its middle hidden, for messages.
export function maskKeyId(accessKeyId: string): string {
  return accessKeyId.length <= 6
    ? `${accessKeyId.slice(0, 2)}…`
    : `${accessKeyId.slice(0, 4)}…${accessKeyId.slice(-2)}`;
}
