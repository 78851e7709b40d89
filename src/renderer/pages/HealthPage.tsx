// Health page (`#/health`): whether this machine can record (the doctor's checks, each with its
// fix), a "Check again" button, and the first-run steps of each operating system.
import { useEffect, type ReactNode } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatDateTime } from '../lib/time';
import {
  healthSelectors,
  useHealthStore,
  VERDICT_LABELS,
  type OnboardingOs,
} from '../store/health';
import './recorder-pages.css';

/** The first-run steps per operating system: what to allow or install, and where. */
const ONBOARDING: { os: OnboardingOs; title: string; steps: ReactNode[] }[] = [
  {
    os: 'macos',
    title: 'macOS: three permissions',
    steps: [
      <>
        <strong>Accessibility</strong> (which button or field each step used): open System Settings
        → Privacy &amp; Security → Accessibility and switch on cua-annotator.
      </>,
      <>
        <strong>Screen Recording</strong> (the video): System Settings → Privacy &amp; Security →
        Screen &amp; System Audio Recording, switch on cua-annotator. macOS then asks to quit and
        reopen the app: choose “Quit &amp; Reopen”; the app comes back to this page and checks
        again.
      </>,
      <>
        <strong>Input Monitoring</strong> (clicks and keys): System Settings → Privacy &amp;
        Security → Input Monitoring, switch on cua-annotator.
      </>,
      <>Press “Check again” below; every check should say OK.</>,
    ],
  },
  {
    os: 'linux',
    title: 'Linux: display, X RECORD and AT-SPI',
    steps: [
      <>
        <strong>Display</strong>: recording needs an X11 session (Xorg or Xvfb). On a Wayland
        desktop, log out and choose the “on Xorg” session at the login screen; start the app from
        that session so <code>DISPLAY</code> is set.
      </>,
      <>
        <strong>X RECORD</strong> (clicks and keys): the X server must offer the RECORD extension.
        Xorg and Xvfb do by default; check with <code>xdpyinfo -queryExtensions | grep RECORD</code>
        .
      </>,
      <>
        <strong>AT-SPI</strong> (which button or field each step used): install{' '}
        <code>at-spi2-core</code> and turn assistive technologies on with{' '}
        <code>gsettings set org.gnome.desktop.interface toolkit-accessibility true</code>, then log
        out and in again. Without it recordings still work, with less detail per step.
      </>,
      <>
        <strong>ffmpeg</strong> with x11grab (the video): <code>sudo apt install ffmpeg</code>.
      </>,
    ],
  },
  {
    os: 'windows',
    title: 'Windows: display scaling',
    steps: [
      <>
        <strong>DPI awareness</strong>: cua-annotator runs per-monitor DPI aware, so a click is
        stored at the pixel it hit at any display scaling. If the check says otherwise, right-click
        the app → Properties → Compatibility → Change high DPI settings, and clear “Override high
        DPI scaling behavior”.
      </>,
      <>
        Record on one monitor, and keep its scaling unchanged while recording, so the video and the
        click positions agree.
      </>,
      <>Accessibility (UI Automation) needs no permission on Windows.</>,
    ],
  },
];

// The health page.
export function HealthPage() {
  const s = useHealthStore();
  const check = useHealthStore((st) => st.check);
  const os = healthSelectors.os(s);
  const counts = healthSelectors.counts(s);

  useEffect(() => {
    void check();
  }, [check]);

  return (
    <div className="page health-page" data-testid="health-page">
      <header className="page-head">
        <div>
          <h1>Health</h1>
          <p className="muted">
            Whether this machine can record, and how to fix what stands in the way.
            {s.checkedAtMs > 0 && <> Checked {formatDateTime(s.checkedAtMs)}.</>}
          </p>
        </div>
        <div className="toolbar">
          <button
            type="button"
            className="btn"
            onClick={() => void check()}
            disabled={s.status === 'loading'}
            data-testid="health-recheck"
          >
            {s.status === 'loading' ? 'Checking…' : 'Check again'}
          </button>
        </div>
      </header>

      {s.error && (
        <ErrorNotice error={s.error} title="The checks could not run" testId="health-error" />
      )}

      {s.health && (
        <div
          className={`notice ${s.health.ok ? 'notice-good' : 'notice-bad'}`}
          role="status"
          data-testid="health-summary"
        >
          {s.health.ok
            ? `Ready to record on ${s.health.platform}.`
            : `Recording will not work on ${s.health.platform} until the failed checks are fixed.`}{' '}
          {counts.ok} OK, {counts.warn} warning{counts.warn === 1 ? '' : 's'}, {counts.fail} failed.
        </div>
      )}
      {s.status === 'loading' && !s.health && <p className="loading">Checking…</p>}

      {s.health && (
        <ul className="health-checks" aria-label="Checks" data-testid="health-checks">
          {healthSelectors.sortedChecks(s).map((c) => {
            const verdict = healthSelectors.verdict(c);
            return (
              <li
                key={c.id}
                className={`health-check is-${verdict}`}
                data-testid="health-check"
                data-check-id={c.id}
                data-verdict={verdict}
              >
                <span className={`verdict verdict-${verdict}`}>{VERDICT_LABELS[verdict]}</span>
                <div className="health-check-body">
                  <div>
                    <strong>{c.summary}</strong> <code className="muted">{c.id}</code>
                  </div>
                  {c.fix && (
                    <p className="health-fix" data-testid="health-fix">
                      <strong>Fix:</strong> {c.fix}
                    </p>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}

      <section className="onboarding" aria-labelledby="onboarding-title">
        <h2 id="onboarding-title">First run</h2>
        {ONBOARDING.map((o) => (
          <details
            key={o.os}
            className="onboarding-os"
            open={os === null || os === o.os}
            data-testid={`onboarding-${o.os}`}
          >
            <summary>
              {o.title}
              {os === o.os && <span className="chip">this machine</span>}
            </summary>
            <ol>
              {o.steps.map((step, i) => (
                <li key={i}>{step}</li>
              ))}
            </ol>
          </details>
        ))}
      </section>
    </div>
  );
}
