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
  flow    {"items": [{"templates": {NAME: str}, "goal": str, "steps": [{"code", "judge"}],
          "answers": [str]}]} -> {"texts": [[request text, ...]]}: the text of every request
          upstream's gen_cot.py makes for the trajectory, in order, given the model's answers
          (generate_cot, gen_reflection_thought / _with_prior_judge per step: "judge" null or a
          reviewer's bool, generate_traj_eval); the last step is not reflected, as upstream
  parse   {"items": [{"kind": "generator" | "json", "text": str}]} -> {"results": [{"ok": bool,
          "value": ...}]}: parse_generator_response's sections, or the JSON answer as upstream
          reads it (the ```json fence cut out, then orjson.loads: NaN/Infinity refused)
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


def has_patch(code):
    for line in code.split("\n"):
        line = line.strip()
        if line and line.startswith(PREFIXES):
            m = re.search(r"x\s*=\s*([0-9.]+).*?y\s*=\s*([0-9.]+)", line)
            if m and 0 <= float(m.group(1)) <= 1 and 0 <= float(m.group(2)) <= 1:
                return True
    return False


def parse_generator_response(text):
    sections = {}
    m = re.search(r"## Observation:?\s*(.*?)(?=\n##\s*Thought:)", text, re.DOTALL | re.IGNORECASE)
    if m and m.group(1).strip():
        sections["observation"] = m.group(1).strip()
    m = re.search(r"## Thought:?\s*(.*?)(?=\n##\s*Action:)", text, re.DOTALL | re.IGNORECASE)
    if m and m.group(1).strip():
        sections["thought"] = m.group(1).strip()
    m = re.search(r"## Action:?\s*(.*)", text, re.DOTALL | re.IGNORECASE)
    if m and m.group(1).strip():
        sections["action"] = m.group(1).strip()
    assert set(sections) == {"observation", "thought", "action"}, text
    return sections


def load_json_answer(text):
    if "```json" in text:
        text = text.split("```json")[1].split("```")[0].strip()
    return json.loads(text)


def refuse_constant(name):
    raise ValueError(f"not JSON: {name}")


def parse(items):
    results = []
    for item in items:
        text = item["text"]
        try:
            if item["kind"] == "generator":
                value = parse_generator_response(text)
            else:
                if "```json" in text:
                    text = text.split("```json")[1].split("```")[0].strip()
                value = json.loads(text, parse_constant=refuse_constant)
            results.append({"ok": True, "value": value})
        except (AssertionError, ValueError):
            results.append({"ok": False, "value": None})
    return {"results": results}


def history_of(generated):
    actions = [step["value"]["action"] for step in generated]
    if not actions:
        return "None"
    return "".join(f"Step {i + 1}: {a}\n" for i, a in enumerate(actions))


def one_flow(item):
    T = item["templates"]
    goal = item["goal"]
    answers = iter(item["answers"])
    texts = []
    generated = []
    n = len(item["steps"])
    for i, st in enumerate(item["steps"]):
        code = st["code"]
        if not code:
            continue
        patch = has_patch(code)
        if not generated:
            ok, redundant, former_thought, former_effect = True, False, "None", "None"
        else:
            v = generated[-1]["value"]
            ok = v["last_step_correct"]
            redundant = v.get("last_step_redundant", False)
            former_thought, former_effect = v["thought"], v["reflection"]
        history = history_of(generated)
        if ok and not redundant:
            name = "COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION" if patch else "COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION"
        else:
            name = ("REFLECT_COT_GENERATOR_PROMPT_FOR_MOUSE_ACTION" if patch
                    else "REFLECT_COT_GENERATOR_PROMPT_FOR_KEYBOARD_ACTION")
        texts.append(T[name].format(goal=goal, previous_actions=history, former_thought=former_thought,
                                    former_action_effect=former_effect, action_commands=code))
        current = {"code": code}
        current.update(parse_generator_response(next(answers)))
        if i == n - 1:
            current["last_step_correct"] = True
            current["last_step_redundant"] = False
            current["reflection"] = ""
        elif st["judge"] is not None:
            current["last_step_correct"] = st["judge"]
            name = ("PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT" if st["judge"]
                    else "PRIOR_JUDGE_TRANSIT_REFLECTION_FORMAT_PROMPT_LAST_INCORRECT")
            texts.append(T[name].format(goal=goal, thought=current["thought"], action=current["action"],
                                        code=code) + "\n\n" + T["PRIOR_JUDGE_REFLECTION_ONLY_FORMAT_PROMPT"])
            answer = load_json_answer(next(answers))
            current["last_step_redundant"] = not current["last_step_correct"]
            current["reflection"] = answer["reflection"]
        else:
            name = "TRANSIT_REFLECTION_FORMAT_PROMPT"
            if code.startswith("computer.terminate"):
                name = "TRANSIT_REFLECTION_FORMAT_PROMPT_TERMINATE_STEP"
            if patch:
                name = "TRANSIT_REFLECTION_WITH_IMAGE_PATCH_FORMAT_PROMPT"
            texts.append(T[name].format(goal=goal, history_steps=history, thought=current["thought"],
                                        action=current["action"], code=code)
                         + "\n\n" + T["REFLECTION_FORMAT_PROMPT"])
            answer = load_json_answer(next(answers))
            current["last_step_correct"] = answer["last_step_correct"]
            current["last_step_redundant"] = answer["last_step_redundant"]
            current["reflection"] = answer["reflection"]
        generated.append({"index": i, "value": current})
    steps = "".join(
        T["STEP_FORMAT"].format(index=k + 1, thought=s["value"]["thought"], action=s["value"]["action"],
                                last_step_correct=s["value"]["last_step_correct"],
                                last_step_redundant=s["value"]["last_step_redundant"],
                                reflection=s["value"]["reflection"])
        for k, s in enumerate(generated))
    texts.append(T["TRAJECTORY_EVAL_FORMAT_PROMPT"].format(goal=goal, steps=steps) + "\n\n"
                 + T["FINAL_TRAJECTORY_EVAL_PROMPT"])
    return texts


def flow(items):
    return {"texts": [one_flow(item) for item in items]}


def main():
    command = sys.argv[1]
    request = json.load(sys.stdin)
    answer = {"cue": cue, "format": fmt, "flow": flow, "parse": parse}[command](request["items"])
    json.dump(answer, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
