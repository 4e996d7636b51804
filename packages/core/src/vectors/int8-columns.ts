// Int8 vector columns in WebAssembly memory, summed by a small SIMD kernel. Plain JavaScript
// runs the same multiply-add at about 0.85 ns a value on this machine's CPU; the kernel does
// 16 rows per step, about six times faster (docs/retrieval.md, "The vector arm in SQLite"). The
// module is assembled below from its instructions, so there is no binary blob to trust.

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
const i16x8Splat = op.simd(0x10);
const i16x8ExtendLowI8x16S = op.simd(0x87);
const i16x8ExtendHighI8x16S = op.simd(0x88);
const i32x4Add = op.simd(0xae);
const i32x4ExtmulLowI16x8S = op.simd(0xbc);
const i32x4ExtmulHighI16x8S = op.simd(0xbd);
const i8x16Shuffle = (lanes: number[]) => [...op.simd(0x0d), ...lanes];
const i32x4Splat = op.simd(0x11);
const f32x4Eq = op.simd(0x41);
const v128Bitselect = op.simd(0x52);
const f32x4DemoteF64x2Zero = op.simd(0x5e);
const f64x2PromoteLowF32x4 = op.simd(0x5f);
const f64x2Mul = op.simd(0xf2);
const f64x2ConvertLowI32x4S = op.simd(0xfe);

// accumulate(column, sums, rows, weight): for each of `rows` int8 values at byte `column`,
// sums[row] += weight * value, with `sums` an int32 array at byte `sums`; 16 rows per step.
const [COLUMN, SUMS, ROWS, WEIGHT, END, WEIGHTS, VALUES, LOW, HIGH] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
/** sums[4 lanes at byte offset] += products of one half of the widened values with the weight. */
const addProducts = (half: number, multiply: number[], offset: number) => [
  ...op.get(SUMS),
  ...op.get(SUMS), ...v128Load(offset),
  ...op.get(half), ...op.get(WEIGHTS), ...multiply,
  ...i32x4Add,
  ...v128Store(offset),
];
const accumulateBody = [
  2, 1, I32, 4, V128, // locals: END (i32); WEIGHTS, VALUES, LOW, HIGH (v128)
  ...op.get(WEIGHT), ...i16x8Splat, ...op.set(WEIGHTS),
  ...op.get(COLUMN), ...op.get(ROWS), ...op.i32Add, ...op.set(END),
  ...op.block, ...op.loop,
  ...op.get(COLUMN), ...op.get(END), ...op.i32GeU, ...op.brIf(1),
  ...op.get(COLUMN), ...v128Load(0), ...op.tee(VALUES), ...i16x8ExtendLowI8x16S, ...op.set(LOW),
  ...op.get(VALUES), ...i16x8ExtendHighI8x16S, ...op.set(HIGH),
  ...addProducts(LOW, i32x4ExtmulLowI16x8S, 0),
  ...addProducts(LOW, i32x4ExtmulHighI16x8S, 16),
  ...addProducts(HIGH, i32x4ExtmulLowI16x8S, 32),
  ...addProducts(HIGH, i32x4ExtmulHighI16x8S, 48),
  ...op.get(COLUMN), ...op.i32Const(16), ...op.i32Add, ...op.set(COLUMN),
  ...op.get(SUMS), ...op.i32Const(64), ...op.i32Add, ...op.set(SUMS),
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
    ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 0]), // type 0: (i32 i32 i32 i32) -> ()
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0x00, 1]), // imports env.memory
    ...section(3, [2, 0, 0]), // functions 0 and 1 have type 0
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
  const kernels = new wasm.Instance(MODULE, { env: { memory } }).exports as Record<
    "accumulate" | "scale",
    (first: number, second: number, third: number, fourth: number) => void
  >;
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
      chosen.forEach((dimension, index) => kernels.accumulate(dimension * rowsPerColumn, sumsOffset, stepped(rows), weights[index]!));
      return sums;
    },
    scaledSums(rows) {
      kernels.scale(sumsOffset, scalesOffset, scoresOffset, stepped(rows));
      return scores;
    },
  };
}
