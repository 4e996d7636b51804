// Int8 vector columns in WebAssembly memory, summed by a small SIMD kernel: four columns of 16
// rows per step. Plain JavaScript runs the same multiply-add at about 0.85 ns a value; a kernel
// of one column a step was already about six times faster, and this one reads and writes each
// row's sum once for four columns (docs/benchmarks.md, "A twelfth host"). The module is
// assembled below from its instructions, so there is no binary blob to trust.

/** The WebAssembly JavaScript API used here (Node has it; TypeScript declares it only in lib.dom). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

const unsigned = (value: number): number[] => {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
};
const signed = (value: number): number[] => {
  const bytes: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0)) return [...bytes, low];
    bytes.push(low | 0x80);
  }
};
const name = (text: string) => [...unsigned(text.length), ...new TextEncoder().encode(text)];
const section = (id: number, bytes: number[]) => [id, ...unsigned(bytes.length), ...bytes];

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32Const: (value: number) => [0x41, ...signed(value)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32GeU: [0x4f],
  simd: (code: number) => [0xfd, ...unsigned(code)],
};
// The SIMD instructions used, by their opcodes in the WebAssembly SIMD proposal (merged in 2.0).
const v128Load = (offset: number) => [...op.simd(0x00), 0, ...unsigned(offset)];
const v128Store = (offset: number) => [...op.simd(0x0b), 0, ...unsigned(offset)];
const i16x8ExtendLowI8x16S = op.simd(0x87);
const i16x8ExtendHighI8x16S = op.simd(0x88);
const i32x4Add = op.simd(0xae);
const i32x4DotI16x8S = op.simd(0xba);
const i8x16Shuffle = (lanes: number[]) => [...op.simd(0x0d), ...lanes];
const i32x4Splat = op.simd(0x11);
const f32x4Eq = op.simd(0x41);
const v128Bitselect = op.simd(0x52);
const f32x4DemoteF64x2Zero = op.simd(0x5e);
const f64x2PromoteLowF32x4 = op.simd(0x5f);
const f64x2Mul = op.simd(0xf2);
const f64x2ConvertLowI32x4S = op.simd(0xfe);

// accumulate(c0, c1, c2, c3, sums, rows, w01, w23): for each of `rows` rows, sums[row] +=
// w0·c0[row] + w1·c1[row] + w2·c2[row] + w3·c3[row], with c0–c3 the byte offsets of four int8
// columns, `sums` an int32 array at byte `sums`, and the four 16-bit weights packed in pairs
// (w01 = w0 | w1 << 16). Four columns per pass read and write the sums once for all four: the
// sums (4 bytes a row) are most of the memory a pass moves. 16 rows per step: the bytes of two
// columns are interleaved (a0 b0 a1 b1 …), widened to 16 bits, and each pair multiplied and
// added by i32x4.dot_i16x8_s against (w0, w1, w0, w1, …).
const [C0, C1, C2, C3, SUMS, ROWS, W01, W23, END, WA, WB, AB_LOW, AB_HIGH, CD_LOW, CD_HIGH] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
const LOW_PAIRS = [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23];
const HIGH_PAIRS = [8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31];
/** Two columns' 16 values at their pointers, interleaved by `lanes`. */
const interleave = (first: number, second: number, lanes: number[]) => [...op.get(first), ...v128Load(0), ...op.get(second), ...v128Load(0), ...i8x16Shuffle(lanes)];
/** sums[4 rows at byte offset] += the dot products of one half of each interleaved pair with its weights. */
const addQuarter = (ab: number, cd: number, widen: number[], offset: number) => [
  ...op.get(SUMS),
  ...op.get(SUMS), ...v128Load(offset),
  ...op.get(ab), ...widen, ...op.get(WA), ...i32x4DotI16x8S, ...i32x4Add,
  ...op.get(cd), ...widen, ...op.get(WB), ...i32x4DotI16x8S, ...i32x4Add,
  ...v128Store(offset),
];
const advance = (local: number, by: number) => [...op.get(local), ...op.i32Const(by), ...op.i32Add, ...op.set(local)];
const accumulateBody = [
  2, 1, I32, 6, V128, // locals: END (i32); WA, WB, AB_LOW, AB_HIGH, CD_LOW, CD_HIGH (v128)
  ...op.get(W01), ...i32x4Splat, ...op.set(WA),
  ...op.get(W23), ...i32x4Splat, ...op.set(WB),
  ...op.get(C0), ...op.get(ROWS), ...op.i32Add, ...op.set(END),
  ...op.block, ...op.loop,
  ...op.get(C0), ...op.get(END), ...op.i32GeU, ...op.brIf(1),
  ...interleave(C0, C1, LOW_PAIRS), ...op.set(AB_LOW),
  ...interleave(C0, C1, HIGH_PAIRS), ...op.set(AB_HIGH),
  ...interleave(C2, C3, LOW_PAIRS), ...op.set(CD_LOW),
  ...interleave(C2, C3, HIGH_PAIRS), ...op.set(CD_HIGH),
  ...addQuarter(AB_LOW, CD_LOW, i16x8ExtendLowI8x16S, 0),
  ...addQuarter(AB_LOW, CD_LOW, i16x8ExtendHighI8x16S, 16),
  ...addQuarter(AB_HIGH, CD_HIGH, i16x8ExtendLowI8x16S, 32),
  ...addQuarter(AB_HIGH, CD_HIGH, i16x8ExtendHighI8x16S, 48),
  ...advance(C0, 16), ...advance(C1, 16), ...advance(C2, 16), ...advance(C3, 16),
  ...advance(SUMS, 64),
  ...op.br(0), ...op.end, ...op.end, ...op.end,
];

// scale(sums, scales, scores, rows): scores[row] = f32(f64(sums[row]) * f64(scales[row])), or
// -Infinity where scales[row] is 0 (a masked row); 4 rows per step. The product is taken in
// float64 and rounded once to float32, as JavaScript's `sums[row] * scales[row]` stored into a
// Float32Array is, so the scores are bit for bit those of the plain loop this replaces.
const [SCALE_SUMS, SCALE_SCALES, SCALE_OUT, SCALE_ROWS, SCALE_END, SUMS4, SCALES4, LOW2, HIGH2] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const HIGH_HALF = [8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];
const LOW_HALVES = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
/** Two rows' scores from the low two lanes of `sums` and `scales`, as f32 in the low two lanes. */
const twoScores = (sums: number[], scales: number[]) => [
  ...sums, ...f64x2ConvertLowI32x4S,
  ...scales, ...f64x2PromoteLowF32x4,
  ...f64x2Mul, ...f32x4DemoteF64x2Zero,
];
const scaleBody = [
  2, 1, I32, 4, V128, // locals: END (i32); SUMS4, SCALES4, LOW2, HIGH2 (v128)
  ...op.get(SCALE_SUMS), ...op.get(SCALE_ROWS), ...op.i32Const(4), ...op.i32Mul, ...op.i32Add, ...op.set(SCALE_END),
  ...op.block, ...op.loop,
  ...op.get(SCALE_SUMS), ...op.get(SCALE_END), ...op.i32GeU, ...op.brIf(1),
  ...op.get(SCALE_SUMS), ...v128Load(0), ...op.set(SUMS4),
  ...op.get(SCALE_SCALES), ...v128Load(0), ...op.set(SCALES4),
  ...twoScores(op.get(SUMS4), op.get(SCALES4)), ...op.set(LOW2),
  ...twoScores(
    [...op.get(SUMS4), ...op.get(SUMS4), ...i8x16Shuffle(HIGH_HALF)],
    [...op.get(SCALES4), ...op.get(SCALES4), ...i8x16Shuffle(HIGH_HALF)],
  ),
  ...op.set(HIGH2),
  // v128.bitselect(a, b, mask) takes a's bits where mask is set: -Infinity where the scale is 0.
  ...op.get(SCALE_OUT),
  ...op.i32Const(-8_388_608 /* 0xff800000, float32 -Infinity */), ...i32x4Splat,
  ...op.get(LOW2), ...op.get(HIGH2), ...i8x16Shuffle(LOW_HALVES),
  ...op.get(SCALES4), ...op.i32Const(0), ...i32x4Splat, ...f32x4Eq,
  ...v128Bitselect,
  ...v128Store(0),
  ...op.get(SCALE_SUMS), ...op.i32Const(16), ...op.i32Add, ...op.set(SCALE_SUMS),
  ...op.get(SCALE_SCALES), ...op.i32Const(16), ...op.i32Add, ...op.set(SCALE_SCALES),
  ...op.get(SCALE_OUT), ...op.i32Const(16), ...op.i32Add, ...op.set(SCALE_OUT),
  ...op.br(0), ...op.end, ...op.end, ...op.end,
];

const MODULE = new wasm.Module(
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    ...section(1, [2, 0x60, 8, ...Array<number>(8).fill(I32), 0, 0x60, 4, I32, I32, I32, I32, 0]), // types 0: (i32 × 8) -> (), 1: (i32 × 4) -> ()
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]), // imports env.memory
    ...section(3, [2, 0, 1]), // function 0 (accumulate) has type 0, function 1 (scale) type 1
    ...section(7, [2, ...name("accumulate"), 0x00, 0, ...name("scale"), 0x00, 1]), // exports both
    ...section(10, [
      2,
      ...unsigned(accumulateBody.length), ...accumulateBody,
      ...unsigned(scaleBody.length), ...scaleBody,
    ]),
  ]),
);

const PAGE = 65_536;
/** Rows are processed 16 at a time, so a column holds a multiple of 16. */
export const ROW_STEP = 16;

/** `dimensions` columns of `capacity` int8 values each, and an int32 sum per row. */
export interface Int8Columns {
  readonly dimensions: number;
  readonly capacity: number;
  /** Column-major: value of dimension d in row r at d * capacity + r. */
  readonly values: Int8Array;
  /**
   * Σ weights[i] · column(dimensions[i]) for the first `rows` rows. Weights are 16-bit integers
   * (|w| ≤ 32,767): with |value| ≤ 127 each product fits 22 bits, so up to 512 of them fit int32.
   * The returned array is reused by the next call.
   */
  weightedSum(dimensions: readonly number[], weights: readonly number[], rows: number): Int32Array;
  /** Per row: the int8 → float scale; 0 masks the row (in WebAssembly memory, beside the columns). */
  readonly scales: Float32Array;
  /**
   * The weighted sums of the first `rows` rows times their scales, as float32 (-Infinity for a
   * row whose scale is 0), after `weightedSum`. The returned array is reused by the next call.
   */
  scaledSums(rows: number): Float32Array;
}

/** Zeroed columns for `capacity` rows (rounded up to a multiple of ROW_STEP). */
export function createInt8Columns(dimensions: number, capacity: number): Int8Columns {
  const rowsPerColumn = Math.ceil(capacity / ROW_STEP) * ROW_STEP;
  // Layout: the columns, then three arrays of one 4-byte value per row: sums, scales, scores.
  const sumsOffset = dimensions * rowsPerColumn;
  const scalesOffset = sumsOffset + rowsPerColumn * 4;
  const scoresOffset = scalesOffset + rowsPerColumn * 4;
  const memory = new wasm.Memory({ initial: Math.ceil((scoresOffset + rowsPerColumn * 4) / PAGE) });
  const kernels = new wasm.Instance(MODULE, { env: { memory } }).exports as {
    accumulate(c0: number, c1: number, c2: number, c3: number, sums: number, rows: number, w01: number, w23: number): void;
    scale(sums: number, scales: number, scores: number, rows: number): void;
  };
  /** Two 16-bit weights in one int32, the first in the low half (the lane order of i16x8). */
  const pair = (first: number, second: number) => (first & 0xffff) | (second << 16);
  const values = new Int8Array(memory.buffer, 0, sumsOffset);
  const sums = new Int32Array(memory.buffer, sumsOffset, rowsPerColumn);
  const scales = new Float32Array(memory.buffer, scalesOffset, rowsPerColumn);
  const scores = new Float32Array(memory.buffer, scoresOffset, rowsPerColumn);
  const stepped = (rows: number) => Math.ceil(rows / ROW_STEP) * ROW_STEP;
  return {
    dimensions,
    capacity: rowsPerColumn,
    values,
    scales,
    weightedSum(chosen, weights, rows) {
      sums.fill(0, 0, stepped(rows));
      // Four columns a pass; a last group of fewer is filled with the first column at weight 0.
      for (let index = 0; index < chosen.length; index += 4) {
        const column = (at: number) => (at < chosen.length ? chosen[at]! : chosen[0]!) * rowsPerColumn;
        const weight = (at: number) => (at < chosen.length ? weights[at]! : 0);
        kernels.accumulate(column(index), column(index + 1), column(index + 2), column(index + 3), sumsOffset, stepped(rows), pair(weight(index), weight(index + 1)), pair(weight(index + 2), weight(index + 3)));
      }
      return sums;
    },
    scaledSums(rows) {
      kernels.scale(sumsOffset, scalesOffset, scoresOffset, stepped(rows));
      return scores;
    },
  };
}
