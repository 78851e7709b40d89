// The synthetic desktop activity of the recorder benchmarks.
// POINTER_ACTIVITY (bench/hook-rate.ts; bench/recorder.ts before issue 31 item 5): a python3-xlib
// script that moves the pointer along a Lissajous curve through XTest, presses a key every 25
// moves, and sleeps `pause` seconds between moves (0.02 ≈ 50 moves a second), for `seconds`; it
// prints how many moves it made. It clicks nothing, so a recorder looks up no element under it.
// usage: ['-c', POINTER_ACTIVITY, String(seconds), String(pause)]
export const POINTER_ACTIVITY = `
import sys, time, math
from Xlib import display, X
from Xlib.ext import xtest
d = display.Display(); end = time.time() + float(sys.argv[1]); pause = float(sys.argv[2]); i = 0
while time.time() < end:
    x = int(640 + 400 * math.cos(i / 20)); y = int(400 + 250 * math.sin(i / 13))
    xtest.fake_input(d, X.MotionNotify, x=x, y=y)
    if i % 25 == 0:
        xtest.fake_input(d, X.KeyPress, 38); xtest.fake_input(d, X.KeyRelease, 38)
    d.sync(); i += 1; time.sleep(pause)
print(i)
`;

// The clicking activity of bench/recorder.ts (issue 31 item 5): a python3-xlib script that, for
// `seconds`, visits the targets in turn (argv[2], JSON `[{x, y, isText}]`, screen px): it glides
// there in 8 moves `gap` seconds apart, rests `rest` seconds (longer than the recorder's hover
// delay, so the element under the resting pointer is looked up as for an annotator), clicks the
// left button, and in a text target selects all (ctrl+a) and types four letters, replacing what
// it typed before (so the form's tree stays the same size from round to round). With the
// defaults of bench/recorder.ts that is about 1.5 clicks, 3 keys and 12 moves a second.
// It prints `{"moves", "clicks", "keys", "seconds"}`.
// usage: ['-c', CLICK_ACTIVITY, String(seconds), JSON.stringify(targets), String(gap), String(rest)]
export const CLICK_ACTIVITY = `
import json, sys, time
from Xlib import display, X, XK
from Xlib.ext import xtest
d = display.Display(); start = time.time(); end = start + float(sys.argv[1])
targets = json.loads(sys.argv[2]); gap = float(sys.argv[3]); rest = float(sys.argv[4])
code = lambda name: d.keysym_to_keycode(XK.string_to_keysym(name))
letters = [code(c) for c in 'abcd']; ctrl = code('Control_L'); key_a = code('a')
pointer = d.screen().root.query_pointer(); x, y = pointer.root_x, pointer.root_y
moves = clicks = keys = 0; i = 0
def tap(keycode):
    xtest.fake_input(d, X.KeyPress, keycode); xtest.fake_input(d, X.KeyRelease, keycode); d.sync()
while time.time() < end:
    t = targets[i % len(targets)]; i += 1
    for s in range(1, 9):
        xtest.fake_input(d, X.MotionNotify, x=int(x + (t['x'] - x) * s / 8),
                         y=int(y + (t['y'] - y) * s / 8))
        d.sync(); moves += 1; time.sleep(gap)
    x, y = t['x'], t['y']
    time.sleep(rest)
    xtest.fake_input(d, X.ButtonPress, 1); d.sync(); time.sleep(0.03)
    xtest.fake_input(d, X.ButtonRelease, 1); d.sync(); clicks += 1
    if t['isText']:
        time.sleep(gap * 3)
        xtest.fake_input(d, X.KeyPress, ctrl); tap(key_a); xtest.fake_input(d, X.KeyRelease, ctrl)
        d.sync(); keys += 1
        for k in letters:
            time.sleep(gap * 2); tap(k); keys += 1
    time.sleep(gap * 3)
print(json.dumps({"moves": moves, "clicks": clicks, "keys": keys, "seconds": time.time() - start}))
`;
