// A step's keyframe with its action drawn on top in SVG: click point, drag path, scroll
// direction, typed text or keys. The SVG uses the image's pixel space (the video resolution), so
// screen-pixel geometry is scaled by image size / screen size (lib/overlay.ts).
import { useId, type MouseEvent } from 'react';
import {
  clientToNormalised,
  polylinePath,
  scrollArrow,
  toImagePx,
  type OverlayModel,
  type SizePx,
} from '../lib/overlay';

/** Props of {@link KeyframeOverlay}. */
export type KeyframeOverlayProps = {
  /** Keyframe image URL (null: not computed yet). */
  src: string | null;
  /** Image size in pixels (the video's resolution). */
  image: SizePx;
  model: OverlayModel;
  /** Compact rendering for the step list (no text callouts). */
  isCompact?: boolean;
  /** When set, clicking the image reports a normalised point (the action editor's picker). */
  onPick?: (point: { x: number; y: number }) => void;
  alt: string;
};

const CLICK_COLOURS: Record<string, string> = {
  click: '#ff3b6b',
  doubleClick: '#ff3b6b',
  tripleClick: '#ff3b6b',
  rightClick: '#ffa41b',
  middleClick: '#b46bff',
};

// Keyframe image + SVG overlay.
export function KeyframeOverlay({
  src,
  image,
  model,
  isCompact,
  onPick,
  alt,
}: KeyframeOverlayProps) {
  const markerId = useId().replace(/:/g, '');
  const w = image.width > 0 ? image.width : 16;
  const h = image.height > 0 ? image.height : 9;
  // marks stay readable on small thumbnails: sizes are a share of the image, not pixels
  const unit = Math.min(w, h) / (isCompact ? 22 : 40);
  const click = model.click ? toImagePx(model.click, { width: w, height: h }) : null;
  const pointer = model.pointer ? toImagePx(model.pointer, { width: w, height: h }) : null;
  const arrowAt = model.click ?? model.pointer ?? null;
  const arrow = model.scroll ? scrollArrow(model.scroll, arrowAt, { width: w, height: h }) : null;
  const rings = model.click
    ? model.click.variant === 'doubleClick'
      ? 2
      : model.click.variant === 'tripleClick'
        ? 3
        : 1
    : 0;

  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    if (!onPick) {
      return;
    }
    const rect = e.currentTarget.getBoundingClientRect();
    onPick(clientToNormalised(e.clientX, e.clientY, rect));
  };

  return (
    <div
      className={`keyframe${isCompact ? ' is-compact' : ''}${onPick ? ' is-picking' : ''}`}
      style={{ aspectRatio: `${w} / ${h}` }}
      onClick={onClick}
      data-testid={isCompact ? undefined : 'keyframe'}
    >
      {src ? (
        <img src={src} alt={alt} loading="lazy" draggable={false} />
      ) : (
        <div className="keyframe-missing">{isCompact ? '' : 'No keyframe yet'}</div>
      )}
      <svg
        className="keyframe-svg"
        viewBox={`0 0 ${w} ${h}`}
        preserveAspectRatio="none"
        aria-hidden="true"
      >
        <defs>
          {[
            ['drag', '#2ee6a6'],
            ['scroll', '#3ab8ff'],
          ].map(([name, colour]) => (
            <marker
              key={name}
              id={`arrow-${name}-${markerId}`}
              viewBox="0 0 10 10"
              refX="6"
              refY="5"
              markerWidth="4"
              markerHeight="4"
              orient="auto-start-reverse"
            >
              <path d="M0 0 L10 5 L0 10 z" fill={colour} />
            </marker>
          ))}
        </defs>
        {model.drag && model.drag.points.length >= 2 && (
          <g className="ov-drag">
            <path
              d={polylinePath(model.drag.points, { width: w, height: h })}
              fill="none"
              stroke="#2ee6a6"
              strokeWidth={unit * 0.35}
              strokeLinecap="round"
              strokeLinejoin="round"
              markerEnd={`url(#arrow-drag-${markerId})`}
            />
            {(() => {
              const first = model.drag.points[0];
              if (!first) {
                return null;
              }
              const p = toImagePx(first, { width: w, height: h });
              return (
                <circle
                  cx={p.x}
                  cy={p.y}
                  r={unit * 0.6}
                  fill="#2ee6a6"
                  stroke="#04291c"
                  strokeWidth={unit * 0.12}
                />
              );
            })()}
          </g>
        )}
        {arrow && (
          <g className="ov-scroll">
            <line
              x1={arrow.from.x}
              y1={arrow.from.y}
              x2={arrow.to.x}
              y2={arrow.to.y}
              stroke="#3ab8ff"
              strokeWidth={unit * 0.45}
              strokeLinecap="round"
              markerEnd={`url(#arrow-scroll-${markerId})`}
            />
            {!isCompact && (
              <text
                x={arrow.to.x + unit * 0.8}
                y={arrow.to.y}
                fontSize={unit * 1.4}
                fill="#fff"
                stroke="#062a40"
                strokeWidth={unit * 0.25}
                paintOrder="stroke"
                dominantBaseline="middle"
              >
                {arrow.label}
              </text>
            )}
          </g>
        )}
        {pointer && !click && (
          <g className="ov-pointer" stroke="#ffe14d" strokeWidth={unit * 0.25}>
            <circle cx={pointer.x} cy={pointer.y} r={unit * 0.9} fill="none" />
            <line
              x1={pointer.x - unit * 1.6}
              y1={pointer.y}
              x2={pointer.x + unit * 1.6}
              y2={pointer.y}
            />
            <line
              x1={pointer.x}
              y1={pointer.y - unit * 1.6}
              x2={pointer.x}
              y2={pointer.y + unit * 1.6}
            />
          </g>
        )}
        {click && model.click && (
          <g className="ov-click" data-variant={model.click.variant}>
            {Array.from({ length: rings }, (_, i) => (
              <circle
                key={i}
                cx={click.x}
                cy={click.y}
                r={unit * (1.1 + i * 0.55)}
                fill="none"
                stroke={CLICK_COLOURS[model.click?.variant ?? 'click']}
                strokeWidth={unit * 0.28}
              />
            ))}
            <circle
              cx={click.x}
              cy={click.y}
              r={unit * 0.32}
              fill={CLICK_COLOURS[model.click.variant]}
            />
          </g>
        )}
      </svg>
      {!isCompact && (model.text !== null || model.keys !== null) && (
        <div className="ov-typing">
          {model.text !== null && (
            <span className="ov-text" title={model.text}>
              <span aria-hidden="true">⌨</span> {model.text === '' ? '(empty)' : model.text}
            </span>
          )}
          {model.keys?.map((k, i) => (
            <kbd key={`${k}-${i}`}>{k}</kbd>
          ))}
        </div>
      )}
      {isCompact && (model.text !== null || model.keys !== null) && (
        <div className="ov-typing-compact" aria-hidden="true">
          ⌨
        </div>
      )}
    </div>
  );
}
