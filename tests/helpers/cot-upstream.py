#!/usr/bin/env python3
"""Upstream's side of the CoT golden tests (tests/pipeline/cot/*.test.ts), run with Debian's
python3-pil: what OpenCUA's data/cot-generate does, step by step, with the same Pillow calls and
the same str.format, so the TypeScript can be compared with it pixel for pixel and byte for byte.

Commands (one JSON document on stdin, one on stdout):
  cue     {"items": [{"image": PNG path, "code": str, "out": folder}]} -> writes out/image.png and
          out/patch.png (when there is one) as upstream's draw_bounding_box_and_crop_patch makes
          them; answers {"patches": [bool, ...]}
  format  {"items": [{"template": str, "kwargs": {...}}]} -> {"texts": [template.format(**kwargs)]}
          (JSON true/false become Python's True/False, as upstream formats the stored booleans)
"""
import json
import re
import sys

PREFIXES = (
    "pyautogui.click",
    "pyautogui.moveTo",
    "pyautogui.dragTo",
    "pyautogui.doubleClick",
    "pyautogui.rightClick",
    "pyautogui.middleClick",
    "pyautogui.tripleClick",
    "computer.tripleClick",
)


def mark(image, cx, cy):
    from PIL import ImageDraw

    width, height = image.size
    ax = int(cx * width)
    ay = int(cy * height)
    draw = ImageDraw.Draw(image)
    size = 40
    draw.ellipse([ax - size // 2, ay - size // 2, ax + size // 2, ay + size // 2],
                 outline="red", width=3)
    r = 2
    draw.ellipse([ax - r, ay - r, ax + r, ay + r], fill="red")
    return image


def patch_of(image, cx, cy, patch_size=300, target_size=300):
    width, height = image.size
    x = int(cx * width)
    y = int(cy * height)
    half = patch_size // 2
    box = (max(0, x - half), max(0, y - half), min(image.width, x + half), min(image.height, y + half))
    patch = image.crop(box)
    factor = target_size / patch_size
    w, h = patch.size
    return patch.resize((int(w * factor), int(h * factor)))


def cue(items):
    from PIL import Image

    patches = []
    for item in items:
        image = Image.open(item["image"])
        image.load()
        patch = None
        for line in item["code"].split("\n"):
            line = line.strip()
            if not line or not line.startswith(PREFIXES):
                continue
            m = re.search(r"x\s*=\s*([0-9.]+).*?y\s*=\s*([0-9.]+)", line)
            if m:
                x = float(m.group(1))
                y = float(m.group(2))
                if 0 <= x <= 1 and 0 <= y <= 1:
                    image = mark(image, x, y)
                    if not patch:
                        patch = patch_of(image, x, y)
        image.save(item["out"] + "/image.png")
        if patch is not None:
            patch.save(item["out"] + "/patch.png")
        patches.append(patch is not None)
    return {"patches": patches}


def fmt(items):
    return {"texts": [item["template"].format(**item["kwargs"]) for item in items]}


def main():
    command = sys.argv[1]
    request = json.load(sys.stdin)
    answer = {"cue": cue, "format": fmt}[command](request["items"])
    json.dump(answer, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
