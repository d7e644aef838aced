"""Writes test/fixtures/hipe-ocrepair/: a small HIPE-OCRepair-format reference and two submissions of our own
text, and expected.json, the figures the task's scorer gives them (hipe_ocrepair_scorer's Evaluation, as
lib/score_one.py of github.com/hipe-eval/HIPE-OCRepair-2026-eval calls it: "None"/empty outputs imputed with the
OCR text, normalize=True). Run with the scorer importable (PYTHONPATH=<HIPE-OCRepair-scorer checkout>) and jiwer.
"""
import copy, json, sys
from pathlib import Path
from hipe_ocrepair_scorer import Evaluation, align_records

OUT = Path(__file__).resolve().parents[2] / "test" / "fixtures" / "hipe-ocrepair"

DOCS = [
    ("The Straße was long; Œuvres of the æther.", "Tbe Strasse was 1ong, CEuvres of tlie aether", "The Strasse was long; Œuvres of the aether.", "The Strasse was long; Œuvres of the aether. And then some more words."),
    ("In the year 1848 the people rose.", "In tlie ycar 1848 the pcople rose.", "In the year 1848 the people rose.", "In the year 1848 the people rose."),
    ("A_B stands for alpha — beta.", "A B stands f0r alpha - beta", "A B stands for alpha beta", "None"),
    ("She said: «Non, merci!»", "She said : « Non , mcrci ! »", "She said: «Non, merci!»", "She sad no thanks"),
    ("Coeur de lion", "Cceur de lion", "Coeur de lion", "Cœur de lion"),
    ("Plain text without errors.", "Plain text without errors.", "Plain text without errors.", "Plain text with errors."),
    ("ab", "ba", "ab", "ba"),
    ("Numbers ½ and Ⅳ count as digits.", "Numbers 1/2 and IV count as digits.", "Numbers ½ and Ⅳ count as digits.", ""),
    ("Excluded document.", "Exc1uded docurnent.", "Excluded document.", "Excluded document."),
    ("The last line of the set, with a hyphen-\nated word.", "The last line of tbe set, with a hyphen¬\nated word.", "The last line of the set, with a hyphenated word.", "The last line of the set with a hyphen ated word"),
]

def record(i, gt, ocr, exclude):
    meta = {"document_id": f"fixture_en_{i}", "primary_dataset_name": "fixture", "language": "en"}
    gtd = {"transcription_unit": gt}
    if exclude:
        gtd["exclude_from_icdar_evaluation"] = True
    return {"document_metadata": meta, "ground_truth": gtd, "ocr_hypothesis": {"transcription_unit": ocr}}

def main():
    OUT.mkdir(parents=True, exist_ok=True)
    refs = [record(i, gt, ocr, i == 8) for i, (gt, ocr, _, _) in enumerate(DOCS)]
    expected = {}
    for k, name in ((2, "system_a"), (3, "system_b")):
        hyps = []
        for i, d in enumerate(DOCS):
            h = copy.deepcopy(refs[i])
            h["ocr_postcorrection_output"] = {"transcription_unit": d[k]}
            hyps.append(h)
        with open(OUT / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for h in hyps:
                f.write(json.dumps(h, ensure_ascii=False) + "\n")
        for h in hyps:  # lib/score_one.py impute_missing_corrections
            t = h["ocr_postcorrection_output"]["transcription_unit"]
            if t is None or t == "None" or t == "":
                h["ocr_postcorrection_output"]["transcription_unit"] = h["ocr_hypothesis"]["transcription_unit"]
        merged = align_records(copy.deepcopy(refs), hyps)
        res = Evaluation(merged).score_over_datasets(normalize=True)["fold_scores"]["fixture"]
        expected[name] = {m: res[m][0] for m in ("cmer_micro", "cmer_macro", "wmer_micro", "wmer_macro", "pref_score_cmer_macro")}
    with open(OUT / "reference.jsonl", "w", encoding="utf-8") as f:
        for r in refs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    (OUT / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    print(json.dumps(expected, indent=2))

if __name__ == "__main__":
    sys.exit(main())
