// tsad's array helpers as plain JavaScript (runtime/index.ts): what runs outside differentiable
// functions, and what the derivative tests use as the primal. Values of
// array-adjoints-map-reduce-scan.md §5 and the errors each helper documents.
import { sum, prod, dot, iota, scan, gather, scatter, reduceByIndex, matmul } from '../../runtime';

test('sum, prod, dot and iota, including empty arrays', () => {
  expect(sum([1, 2, 3, 4])).toBe(10);
  expect(sum(new Float64Array(0))).toBe(0);
  expect(prod([2, 3, 4])).toBe(24);
  expect(prod([])).toBe(1);
  expect(dot([1, 2, 3], Float32Array.from([4, 5, 6]))).toBe(32);
  expect(() => dot([1, 2], [1])).toThrow(new RangeError('tsad: dot: the two arrays have different lengths (2 and 1)'));
  expect(Array.from(iota(4))).toEqual([0, 1, 2, 3]);
  expect(iota(0).length).toBe(0);
});

test('scan: inclusive, from the neutral element or the given value; a function needs its initial value', () => {
  expect(Array.from(scan([1, 2, 3, 4], '+'))).toEqual([1, 3, 6, 10]);
  expect(Array.from(scan([2, 3, 4], '*'))).toEqual([2, 6, 24]);
  expect(Array.from(scan([3, 1, 2], 'min'))).toEqual([3, 1, 1]);
  expect(Array.from(scan([1, 3, 2], 'max', 2))).toEqual([2, 3, 3]);
  expect(Array.from(scan([1, 2], (a, b) => a + b + a * b, 0))).toEqual([1, 5]);
  expect(() => scan([1], (a, b) => a + b)).toThrow('tsad: scan with a function needs its initial value');
});

test('gather, scatter and reduceByIndex: the values of §5 examples 10, 11 and 13-15', () => {
  expect(Array.from(gather([1, 2, 3, 4], [0, 2, 2]))).toEqual([1, 3, 3]);
  expect(() => gather([1, 2], [0, 2])).toThrow(new RangeError('tsad: gather: index 2 is outside an array of 2'));
  expect(Array.from(scatter([10, 20, 30, 40, 50], [1, 3], [7, 8]))).toEqual([10, 7, 30, 8, 50]);
  expect(() => scatter([1, 2, 3], [0, 0], [1, 2])).toThrow('tsad: scatter: index 0 appears twice');
  expect(() => scatter([1, 2, 3], [0], [1, 2])).toThrow('tsad: scatter: indices and values have different lengths (1 and 2)');
  expect(Array.from(reduceByIndex([0, 0, 0], [0, 2, 0, 1, 5], [1, 2, 3, 4, 5], '+'))).toEqual([4, 4, 2]);
  expect(Array.from(reduceByIndex([1, 1], [0, 0, 1, 1, 1], [2, 3, 0, 5, 2], '*'))).toEqual([6, 0]);
  expect(Array.from(reduceByIndex([5, 0], [0, 0, 1], [3, 1, 2], 'min'))).toEqual([1, 0]);
  expect(Array.from(reduceByIndex([0], [0, 0], [2, 3], (h, v) => h * 10 + v))).toEqual([23]);
});

test('matmul of arrays of rows; mismatched sizes are a RangeError', () => {
  expect(
    matmul(
      [
        [1, 2],
        [3, 4],
      ],
      [
        [5, 6],
        [7, 8],
      ],
    ),
  ).toEqual([
    [19, 22],
    [43, 50],
  ]);
  expect(matmul([], [[1]])).toEqual([]);
  expect(() => matmul([[1, 2, 3]], [[1], [2]])).toThrow('tsad: matmul: row 0 of the first matrix has 3 columns, the second matrix 2 rows');
});
