// The synthetic desktop activity of the recorder benchmarks (bench/recorder.ts, bench/hook-rate.ts):
// a python3-xlib script that moves the pointer along a Lissajous curve through XTest, presses a key
// every 25 moves, and sleeps `pause` seconds between moves (0.02 ≈ 50 moves a second), for
// `seconds`; it prints how many moves it made.
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
