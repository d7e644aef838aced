"""Reference CER/WER with jiwer for bench/metrics-vs-jiwer.ts.

stdin: {"sets": {"<name>": {"refs", "hyps", "word_refs", "word_hyps": [...]}}} (texts already in scoring
form; refs/hyps are scored for CER, word_refs/word_hyps for WER)
stdout: {"jiwer_version": ..., "sets": {"<name>": {"cer": x, "wer": y, "line_char_edits": [...], "line_word_edits": [...]}}}
"""
import json
import sys
import time

import jiwer


def main() -> None:
    payload = json.load(sys.stdin)
    out = {"jiwer_version": getattr(jiwer, "__version__", None) or _dist_version(), "sets": {}}
    for name, data in payload["sets"].items():
        refs, hyps = data["refs"], data["hyps"]
        wrefs, whyps = data["word_refs"], data["word_hyps"]
        t0 = time.perf_counter()
        c = jiwer.cer(refs, hyps)
        w = jiwer.wer(wrefs, whyps)
        corpus_s = time.perf_counter() - t0
        line_c, line_w = [], []
        for r, h in zip(refs, hyps):
            co = jiwer.process_characters(r, h)
            line_c.append(co.substitutions + co.deletions + co.insertions)
        for r, h in zip(wrefs, whyps):
            wo = jiwer.process_words(r, h)
            line_w.append(wo.substitutions + wo.deletions + wo.insertions)
        out["sets"][name] = {
            "cer": c,
            "wer": w,
            "line_char_edits": line_c,
            "line_word_edits": line_w,
            "corpus_seconds": corpus_s,
        }
    json.dump(out, sys.stdout)


def _dist_version() -> str:
    from importlib.metadata import version

    return version("jiwer")


if __name__ == "__main__":
    main()
