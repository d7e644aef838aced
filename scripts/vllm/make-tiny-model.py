"""Make models/vllm-tiny/: the demo GGUF (SmolLM2-135M-Instruct, Q4_1) as a bf16 safetensors model vLLM serves.

Run by scripts/vllm/setup-vllm.mjs with .venv-vllm's python (transformers, torch and gguf pinned there).
  1. transformers reads the GGUF (`from_pretrained(gguf_file=...)`, dequantised to bf16); the weights are copied
     into a fresh model of the same config, since a model loaded from a GGUF refuses `save_pretrained`;
  2. `<think>` and `</think>` are added to the vocabulary as single, non-special tokens (vLLM's `qwen3` reasoning
     parser matches them by token id, and non-special tokens stay in the decoded text). SmolLM2 never saw them:
     with their embedding rows at the mean of the others it answers an empty turn after them, so their input rows
     are a copy of the newline token's, and the output layer is untied from the embeddings with zero rows for
     them, so the model never writes them;
  3. the chat template is SmolLM2's ChatML with Qwen3's `enable_thinking`: on (the default) the assistant turn
     opens with `<think>\n`; off, it is SmolLM2's plain assistant turn (an empty `<think></think>` block makes
     this model stop at once);
  4. manifest.json lists every file's sha256, the GGUF's sha256 and the recipe hash setup passes in.
"""

import argparse
import hashlib
import json
import shutil
from importlib.metadata import version
from pathlib import Path

import torch
import transformers
from transformers import AddedToken, AutoModelForCausalLM, AutoTokenizer

THINK_TOKENS = ["<think>", "</think>"]
DEFAULT_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{%- if loop.first and message['role'] != 'system' %}"
    "{{- '<|im_start|>system\\n" + DEFAULT_SYSTEM + "<|im_end|>\\n' }}"
    "{%- endif %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if not (enable_thinking is defined and enable_thinking is false) %}"
    "{{- '<think>\\n' }}"
    "{%- endif %}"
    "{%- endif %}"
)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def dequantised(gguf_path: Path):
    src = AutoModelForCausalLM.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32)
    config = src.config
    # The saved model is plain bf16: without this, config.json would tell vLLM to load it as a GGUF.
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    config.tie_word_embeddings = False
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    weights = {k: v.to(torch.bfloat16) for k, v in src.state_dict().items()}
    weights.setdefault("lm_head.weight", weights["model.embed_tokens.weight"].clone())
    model.load_state_dict(weights)
    model.generation_config = src.generation_config
    return model


def add_think_tokens(model, tok) -> dict:
    newline = tok.encode("\n", add_special_tokens=False)
    if len(newline) != 1:
        raise SystemExit(f"the newline is not one token: {newline}")
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in THINK_TOKENS])
    model.resize_token_embeddings(len(tok), mean_resizing=False)
    ids = {t: tok.convert_tokens_to_ids(t) for t in THINK_TOKENS}
    with torch.no_grad():
        emb = model.get_input_embeddings().weight
        out = model.get_output_embeddings().weight
        for i in ids.values():
            emb[i] = emb[newline[0]]
            out[i] = 0
    for t, i in ids.items():
        if tok.encode(t, add_special_tokens=False) != [i]:
            raise SystemExit(f"{t} is not one token after adding it")
    return ids


def check_template(tok) -> None:
    msgs = [{"role": "user", "content": "x"}]
    on = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    off = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True, enable_thinking=False)
    if not on.endswith("<|im_start|>assistant\n<think>\n") or not off.endswith("<|im_start|>assistant\n"):
        raise SystemExit(f"the chat template does not honour enable_thinking: {on!r} / {off!r}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--recipe", required=True)
    args = ap.parse_args()
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(args.gguf.parent, gguf_file=args.gguf.name)
    model = dequantised(args.gguf)
    think_ids = add_think_tokens(model, tok)
    tok.chat_template = CHAT_TEMPLATE
    check_template(tok)
    tmp = args.out.with_name(args.out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    files = {p.name: sha256(p) for p in sorted(tmp.iterdir()) if p.is_file()}
    manifest = {
        "made_by": "scripts/vllm/make-tiny-model.py",
        "source_gguf": {"file": args.gguf.name, "sha256": sha256(args.gguf)},
        "recipe_sha256": args.recipe,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "gguf": version("gguf")},
        "think_token_ids": think_ids,
        "vocab_size": len(tok),
        "files": files,
    }
    (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(args.out, ignore_errors=True)
    tmp.rename(args.out)
    print(f"made {args.out}: {len(files)} files, think tokens {think_ids}")


if __name__ == "__main__":
    main()
