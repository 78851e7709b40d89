// One helper process for all the parts of a recording on macOS and Windows. The accessibility
// adapter, the window tracker, the display watcher and the pre-capture checks each want "a
// helper"; started separately they would be three or four Node processes, each polling focus and
// displays (docs/helper-protocol.md §5). Each part gets a lease instead: the first lease to start
// starts the one client, the last to stop stops it, and a later recording starts a fresh one.
import type {
  AccessibilityAdapter,
  AccessibilityGap,
  AccessibilityInfo,
  AxContentChange,
} from '../../axtree/adapter';
import type { AxBudget } from '../../axtree/budgets';
import type {
  ActiveWindowResult,
  HelperDisplay,
  PermissionsResult,
} from '../../axtree/platform/helper-protocol';
import type { AxElementRecord, AxFocusEvent, AxSnapshot } from '../../axtree/model';
import type { PlatformHelper, PlatformPartOptions } from './types';

/** What a shared client must offer: the adapter and the platform helper in one. */
export type HelperClient = AccessibilityAdapter &
  PlatformHelper & {
    start(): Promise<AccessibilityInfo>;
    onFocusChanged(listener: (event: AxFocusEvent) => void): () => void;
  };

/** The one client of the parts holding a lease, with its start shared. */
class SharedClient {
  private client: HelperClient | null = null;
  private started: Promise<AccessibilityInfo> | null = null;
  private holders = 0;

  constructor(private readonly make: (options: PlatformPartOptions) => HelperClient) {}

  /** The current client, made (not started) on first use with the first part's options. */
  get(options: PlatformPartOptions): HelperClient {
    this.client ??= this.make(options);
    return this.client;
  }

  async acquire(options: PlatformPartOptions): Promise<AccessibilityInfo> {
    const client = this.get(options);
    this.holders += 1;
    this.started ??= client.start();
    try {
      return await this.started;
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  async release(): Promise<void> {
    this.holders -= 1;
    if (this.holders > 0) {
      return;
    }
    const client = this.client;
    this.client = null;
    this.started = null;
    await client?.stop();
  }
}

/** One part's hold on the shared client: the adapter and platform-helper surface. */
class HelperLease implements HelperClient {
  private state: 'idle' | 'held' | 'stopped' = 'idle';
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly shared: SharedClient,
    private readonly options: PlatformPartOptions,
  ) {}

  private get client(): HelperClient {
    return this.shared.get(this.options);
  }

  async start(): Promise<AccessibilityInfo> {
    if (this.state !== 'idle') {
      throw new Error(`helper lease started in state '${this.state}'; make a new part`);
    }
    this.state = 'held';
    try {
      return await this.shared.acquire(this.options);
    } catch (error) {
      this.state = 'stopped';
      throw error;
    }
  }

  elementAt(x: number, y: number): Promise<AxElementRecord | null> {
    return this.client.elementAt(x, y);
  }

  snapshotFocusedWindow(budget?: Partial<AxBudget>): Promise<AxSnapshot> {
    return this.client.snapshotFocusedWindow(budget);
  }

  focusedIsSecure(): Promise<boolean> {
    return this.client.focusedIsSecure();
  }

  displays(): Promise<HelperDisplay[]> {
    return this.client.displays();
  }

  activeWindow(): Promise<ActiveWindowResult | null> {
    return this.client.activeWindow();
  }

  permissions(): Promise<PermissionsResult> {
    return this.client.permissions();
  }

  onFocusChanged(listener: (event: AxFocusEvent) => void): () => void {
    return this.keep(this.client.onFocusChanged(listener));
  }

  onDisplaysChanged(listener: (displays: HelperDisplay[]) => void): () => void {
    return this.keep(this.client.onDisplaysChanged?.(listener) ?? ((): void => undefined));
  }

  onGap(listener: (gap: AccessibilityGap) => void): () => void {
    return this.keep(this.client.onGap?.(listener) ?? ((): void => undefined));
  }

  onContentChanged(listener: (change: AxContentChange) => void): () => void {
    return this.keep(this.client.onContentChanged?.(listener) ?? ((): void => undefined));
  }

  // Ends this part's subscriptions, and the client with the last lease; safe to call twice.
  async stop(): Promise<void> {
    const wasHeld = this.state === 'held';
    this.state = 'stopped';
    for (const unsubscribe of this.unsubscribes.splice(0)) {
      unsubscribe();
    }
    if (wasHeld) {
      await this.shared.release();
    }
  }

  private keep(unsubscribe: () => void): () => void {
    this.unsubscribes.push(unsubscribe);
    return unsubscribe;
  }
}

// A factory of leases on one client made by `make`: every part made from it shares the process.
export function sharedHelperFactory(
  make: (options: PlatformPartOptions) => HelperClient,
): (options: PlatformPartOptions) => HelperClient {
  const shared = new SharedClient(make);
  return (options) => new HelperLease(shared, options);
}
