// Runs the recording UX (./recording-ux.ts) against the recorder and the screen: inputs from the
// tray, the hotkeys, the Record page and the recorder's status events go through the pure
// machine; its commands go to the RecorderControls; its view goes to the tray, the HUD and the
// main window through injected ports, so tests drive the whole loop without Electron.
import type { Menu, MenuItemConstructorOptions } from 'electron';
import { assertNever } from '../shared/assert';
import {
  INITIAL_UX_STATE,
  reduceUx,
  viewUx,
  type RecorderSnapshot,
  type TrayItemId,
  type UxCommand,
  type UxInput,
  type UxState,
  type UxView,
  type ViewHotkeys,
} from './recording-ux';

/**
 * What the shell drives: the recorder's contract methods (`recorder:start` … `recorder:get-status`
 * through services.dispatch in the app). Each resolves with the recorder's status after the
 * call, or rejects with the error the recorder answered.
 */
export type RecorderControls = {
  start(task: string): Promise<RecorderSnapshot>;
  pause(): Promise<RecorderSnapshot>;
  resume(): Promise<RecorderSnapshot>;
  stop(): Promise<RecorderSnapshot>;
  discard(): Promise<RecorderSnapshot>;
  status(): Promise<RecorderSnapshot>;
};

/** Options of {@link RecordingShell}. */
export type RecordingShellOptions = {
  controls: RecorderControls;
  /** Shows a view (tray, HUD, main window, notice). */
  render: (view: UxView) => void;
  /** Asks the user for a task (shows the main window on the Record page). */
  askTask: () => void;
  /** Accelerators shown in the tray; default none. */
  hotkeys?: ViewHotkeys;
  /** Wall clock, ms; default Date.now. */
  now?: () => number;
};

/** The recording UX bound to a recorder and a screen. */
export class RecordingShell {
  private stateValue: UxState = INITIAL_UX_STATE;
  private readonly now: () => number;
  private hotkeys: ViewHotkeys;
  /** Commands under way (tests wait for them). */
  private pending = new Set<Promise<void>>();

  constructor(private readonly options: RecordingShellOptions) {
    this.now = options.now ?? Date.now;
    this.hotkeys = options.hotkeys ?? {};
  }

  /** The current state. */
  get state(): UxState {
    return this.stateValue;
  }

  /** The current view. */
  view(): UxView {
    return viewUx(this.stateValue, this.now(), this.hotkeys);
  }

  /** Feeds one input; renders and starts the commands it asks for. */
  send(input: UxInput): void {
    const { state, commands } = reduceUx(this.stateValue, input);
    this.stateValue = state;
    this.refresh();
    for (const command of commands) {
      this.launch(command);
    }
  }

  /** Feeds a status the recorder pushed (`recorder:status-changed`). */
  onStatus(status: RecorderSnapshot): void {
    this.send({ type: 'status', status, atMs: this.now() });
  }

  /** A tray menu item was clicked (quit is the host's own). */
  onTrayItem(id: Exclude<TrayItemId, 'quit' | 'show'>): void {
    this.send({ type: id });
  }

  /** New hotkey accelerators for the tray labels. */
  setHotkeys(hotkeys: ViewHotkeys): void {
    this.hotkeys = hotkeys;
    this.refresh();
  }

  /** Renders the current view again (the elapsed time moves on). */
  refresh(): void {
    this.options.render(this.view());
  }

  /**
   * Asks the recorder for its status (at start-up: a recording may be under way). A recorder
   * that cannot answer leaves the UX idle; starting then says why.
   */
  async sync(): Promise<void> {
    try {
      this.onStatus(await this.options.controls.status());
    } catch {
      this.refresh();
    }
  }

  /** Resolves once every command under way has finished. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
    }
  }

  private launch(command: UxCommand): void {
    if (command.kind === 'ask-task') {
      this.options.askTask();
      return;
    }
    const run = (async () => {
      try {
        const status = await this.call(command);
        this.onStatus(status);
      } catch (e) {
        this.send({ type: 'command-failed', command: command.kind, message: messageOf(e) });
      }
    })();
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  private call(command: Exclude<UxCommand, { kind: 'ask-task' }>): Promise<RecorderSnapshot> {
    const { controls } = this.options;
    switch (command.kind) {
      case 'start':
        return controls.start(command.task);
      case 'pause':
        return controls.pause();
      case 'resume':
        return controls.resume();
      case 'stop':
        return controls.stop();
      case 'discard':
        return controls.discard();
      default:
        return assertNever(command, 'recorder command');
    }
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The tray menu template of a view; `onItem` gets the clicked item's id. */
export function trayMenuTemplate(
  view: UxView,
  onItem: (id: TrayItemId) => void,
): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [
    { label: view.tray.tooltip.replace(/^cua-annotator: /, 'State: '), enabled: false },
    { type: 'separator' },
  ];
  for (const item of view.tray.items) {
    if (item.id === 'show' || item.id === 'quit') {
      items.push({ type: 'separator' });
    }
    items.push({
      id: item.id,
      label: item.label,
      enabled: item.enabled,
      // shown beside the label only: the hotkey itself is global (./hotkeys.ts)
      ...(item.accelerator === undefined
        ? {}
        : { accelerator: item.accelerator, registerAccelerator: false }),
      click: () => onItem(item.id),
    });
  }
  return items;
}

/** What {@link applyView} changes. */
export type ViewTargets = {
  tray: { setToolTip(text: string): void; setContextMenu(menu: Menu | null): void };
  buildMenu: (template: MenuItemConstructorOptions[]) => Menu;
  /** The HUD window: created when `create` (it is to be shown), else the existing one or null. */
  hud: (create: boolean) => { isVisible(): boolean; showInactive(): void; hide(): void } | null;
  main: { isVisible(): boolean; show(): void; hide(): void } | null;
  onTrayItem: (id: TrayItemId) => void;
  /** Shows a notice (a system notification or dialog). */
  notify: (text: string) => void;
};

// Applies a view to the tray, the HUD and the main window; a notice is shown once.
export function createViewApplier(targets: ViewTargets): (view: UxView) => void {
  let lastNotice: string | null = null;
  let lastMenuKey = '';
  let hiddenByUs = false;
  return (view) => {
    targets.tray.setToolTip(view.tray.tooltip);
    const menuKey = JSON.stringify(view.tray.items);
    if (menuKey !== lastMenuKey) {
      lastMenuKey = menuKey;
      targets.tray.setContextMenu(targets.buildMenu(trayMenuTemplate(view, targets.onTrayItem)));
    }
    const hud = targets.hud(view.hud.visible);
    if (hud && view.hud.visible && !hud.isVisible()) {
      // inactive: the HUD must not take the focus from the application being recorded
      hud.showInactive();
    } else if (hud && !view.hud.visible && hud.isVisible()) {
      hud.hide();
    }
    // the main window leaves the screen while recording and comes back after, if it was shown
    const main = targets.main;
    if (main && !view.mainWindowVisible && main.isVisible()) {
      main.hide();
      hiddenByUs = true;
    } else if (main && view.mainWindowVisible && hiddenByUs) {
      hiddenByUs = false;
      main.show();
    }
    if (view.notice !== null && view.notice !== lastNotice) {
      targets.notify(view.notice);
    }
    lastNotice = view.notice;
  };
}
