// Writes a tiny llama-architecture GGUF model with random weights (a few hundred KB), so the CoT
// smoke test runs a real llama.cpp runtime without downloading a model. It proves plumbing, not
// quality: the weights are noise and a grammar decides what the text can be.
//
// The file follows the GGUF format (version 3): the magic "GGUF", the version, the tensor and
// key-value counts, the key-value pairs (typed values; strings and arrays carry u64 lengths), the
// tensor descriptions (name, dimensions fastest-varying first, type, offset into the data), then
// the tensor data aligned to `general.alignment` (32). The keys are the ones llama.cpp reads for
// the llama architecture (context and embedding length, block count, feed-forward length, head
// counts, RMS-norm epsilon, rope dimensions) and for a SentencePiece ("llama") vocabulary (tokens,
// scores, token types, the special ids), which needs a byte token <0xXX> for every byte.

import { writeFileSync } from 'node:fs';

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const GGUF_VERSION = 3;
const ALIGNMENT = 32;

// value types
const T_UINT32 = 4;
const T_INT32 = 5;
const T_FLOAT32 = 6;
const T_BOOL = 7;
const T_STRING = 8;
const T_ARRAY = 9;
// tensor type
const GGML_TYPE_F32 = 0;
// token types
const TOKEN_NORMAL = 1;
const TOKEN_UNKNOWN = 2;
const TOKEN_CONTROL = 3;
const TOKEN_BYTE = 6;

type Value =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'str'; value: string }
  | { type: 'str[]'; value: string[] }
  | { type: 'f32[]'; value: number[] }
  | { type: 'i32[]'; value: number[] };

export interface TinyModelShape {
  embedding: number;
  layers: number;
  heads: number;
  feedForward: number;
  context: number;
}

export const TINY_SHAPE: TinyModelShape = {
  embedding: 64,
  layers: 1,
  heads: 2,
  feedForward: 128,
  // long enough for upstream's prompts, which this character-level vocabulary makes ~8k tokens
  context: 32768,
};

/** The vocabulary: <unk>, <s>, </s>, the 256 byte tokens, "▁" (SentencePiece's space) and
 * every printable ASCII character. */
export function tinyVocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_CONTROL];
  for (let b = 0; b < 256; b += 1) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_BYTE);
  }
  tokens.push('\u2581');
  types.push(TOKEN_NORMAL);
  for (let c = 0x21; c <= 0x7e; c += 1) {
    tokens.push(String.fromCharCode(c));
    types.push(TOKEN_NORMAL);
  }
  // SentencePiece scores: higher merges first; single pieces only here, so any order works
  const scores = tokens.map((_, i) => (types[i] === TOKEN_NORMAL ? -i : 0));
  return { tokens, scores, types };
}

/** A deterministic pseudo-random generator (mulberry32), so every run writes the same file. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds the GGUF bytes. */
export function tinyGguf(shape: TinyModelShape = TINY_SHAPE, seed = 30): Buffer {
  const vocab = tinyVocabulary();
  const nVocab = vocab.tokens.length;
  const headDim = shape.embedding / shape.heads;
  const metadata: [string, Value][] = [
    ['general.architecture', { type: 'str', value: 'llama' }],
    ['general.name', { type: 'str', value: 'cua-annotator tiny random llama' }],
    ['general.alignment', { type: 'u32', value: ALIGNMENT }],
    ['llama.context_length', { type: 'u32', value: shape.context }],
    ['llama.embedding_length', { type: 'u32', value: shape.embedding }],
    ['llama.block_count', { type: 'u32', value: shape.layers }],
    ['llama.feed_forward_length', { type: 'u32', value: shape.feedForward }],
    ['llama.attention.head_count', { type: 'u32', value: shape.heads }],
    ['llama.attention.head_count_kv', { type: 'u32', value: shape.heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.rope.dimension_count', { type: 'u32', value: headDim }],
    ['llama.rope.freq_base', { type: 'f32', value: 10000 }],
    ['llama.vocab_size', { type: 'u32', value: nVocab }],
    ['tokenizer.ggml.model', { type: 'str', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'str[]', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32[]', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'u32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'u32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'u32', value: 2 }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.ggml.add_eos_token', { type: 'bool', value: false }],
  ];

  const e = shape.embedding;
  const ff = shape.feedForward;
  // [name, dims fastest-varying first, scale of the random values (1 = a norm's ones)]
  const tensors: [string, number[], number][] = [
    ['token_embd.weight', [e, nVocab], 0.5],
    ['output_norm.weight', [e], 0],
    ['output.weight', [e, nVocab], 0.5],
  ];
  for (let l = 0; l < shape.layers; l += 1) {
    tensors.push(
      [`blk.${l}.attn_norm.weight`, [e], 0],
      [`blk.${l}.attn_q.weight`, [e, e], 0.2],
      [`blk.${l}.attn_k.weight`, [e, e], 0.2],
      [`blk.${l}.attn_v.weight`, [e, e], 0.2],
      [`blk.${l}.attn_output.weight`, [e, e], 0.2],
      [`blk.${l}.ffn_norm.weight`, [e], 0],
      [`blk.${l}.ffn_gate.weight`, [e, ff], 0.2],
      [`blk.${l}.ffn_up.weight`, [e, ff], 0.2],
      [`blk.${l}.ffn_down.weight`, [ff, e], 0.2],
    );
  }

  const out = new Writer();
  out.u32(GGUF_MAGIC);
  out.u32(GGUF_VERSION);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.str(key);
    out.value(value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const [name, dims] of tensors) {
    out.str(name);
    out.u32(dims.length);
    for (const d of dims) {
      out.u64(d);
    }
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offsets.push(offset);
    offset = align(offset + 4 * dims.reduce((a, b) => a * b, 1));
  }
  out.pad();
  const rand = random(seed);
  tensors.forEach(([, dims, scale], i) => {
    const count = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(count);
    for (let j = 0; j < count; j += 1) {
      data[j] = scale === 0 ? 1 : (rand() * 2 - 1) * scale;
    }
    out.pad();
    if (out.length - out.dataStart !== offsets[i]) {
      throw new Error('GGUF tensor offset drift');
    }
    out.bytes(Buffer.from(data.buffer));
  });
  return out.done();
}

export function writeTinyGguf(path: string, shape?: TinyModelShape, seed?: number): number {
  const bytes = tinyGguf(shape, seed);
  writeFileSync(path, bytes);
  return bytes.length;
}

function align(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

class Writer {
  private chunks: Buffer[] = [];
  length = 0;
  /** Where the tensor data begins (set by the first pad after the descriptions). */
  dataStart = -1;

  bytes(b: Buffer): void {
    this.chunks.push(b);
    this.length += b.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.bytes(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  value(v: Value): void {
    switch (v.type) {
      case 'u32':
        this.u32(T_UINT32);
        this.u32(v.value);
        return;
      case 'f32':
        this.u32(T_FLOAT32);
        this.f32(v.value);
        return;
      case 'bool':
        this.u32(T_BOOL);
        this.bytes(Buffer.from([v.value ? 1 : 0]));
        return;
      case 'str':
        this.u32(T_STRING);
        this.str(v.value);
        return;
      case 'str[]':
        this.u32(T_ARRAY);
        this.u32(T_STRING);
        this.u64(v.value.length);
        for (const s of v.value) {
          this.str(s);
        }
        return;
      case 'f32[]':
        this.u32(T_ARRAY);
        this.u32(T_FLOAT32);
        this.u64(v.value.length);
        for (const n of v.value) {
          this.f32(n);
        }
        return;
      case 'i32[]':
        this.u32(T_ARRAY);
        this.u32(T_INT32);
        this.u64(v.value.length);
        for (const n of v.value) {
          this.i32(n);
        }
        return;
    }
  }
  /** Zero bytes up to the next multiple of the alignment. */
  pad(): void {
    const n = align(this.length) - this.length;
    if (n > 0) {
      this.bytes(Buffer.alloc(n));
    }
    if (this.dataStart < 0) {
      this.dataStart = this.length;
    }
  }
  done(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
