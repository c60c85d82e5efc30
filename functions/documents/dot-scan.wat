;; Exact similarity scan of a vector index (functions/documents/vector-index.ts): for each of `count` rows of
;; `stride` floats starting at `rows`, the dot product with the query at `query` goes to `scores[row]`.
;; `stride` is a multiple of 16: one loop turn multiplies 16 floats as four f32x4 lanes, kept in four sums so the
;; additions do not wait on each other. Compiled by `npm run build:wasm` into dot-scan-wasm.ts.
(module
  (memory (export "memory") 1)
  (func (export "scan") (param $query i32) (param $rows i32) (param $count i32) (param $stride i32) (param $scores i32)
    (local $row i32) (local $at i32) (local $rowBytes i32) (local $qk i32) (local $rk i32)
    (local $sum0 v128) (local $sum1 v128) (local $sum2 v128) (local $sum3 v128) (local $sum v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $done
      (loop $eachRow
        (br_if $done (i32.ge_u (local.get $row) (local.get $count)))
        (local.set $sum0 (v128.const f32x4 0 0 0 0))
        (local.set $sum1 (v128.const f32x4 0 0 0 0))
        (local.set $sum2 (v128.const f32x4 0 0 0 0))
        (local.set $sum3 (v128.const f32x4 0 0 0 0))
        (local.set $at (i32.const 0))
        (loop $eachSixteen
          (local.set $qk (i32.add (local.get $query) (local.get $at)))
          (local.set $rk (i32.add (local.get $rows) (local.get $at)))
          (local.set $sum0 (f32x4.add (local.get $sum0) (f32x4.mul (v128.load (local.get $qk)) (v128.load (local.get $rk)))))
          (local.set $sum1 (f32x4.add (local.get $sum1) (f32x4.mul (v128.load offset=16 (local.get $qk)) (v128.load offset=16 (local.get $rk)))))
          (local.set $sum2 (f32x4.add (local.get $sum2) (f32x4.mul (v128.load offset=32 (local.get $qk)) (v128.load offset=32 (local.get $rk)))))
          (local.set $sum3 (f32x4.add (local.get $sum3) (f32x4.mul (v128.load offset=48 (local.get $qk)) (v128.load offset=48 (local.get $rk)))))
          (local.set $at (i32.add (local.get $at) (i32.const 64)))
          (br_if $eachSixteen (i32.lt_u (local.get $at) (local.get $rowBytes))))
        (local.set $sum (f32x4.add (f32x4.add (local.get $sum0) (local.get $sum1)) (f32x4.add (local.get $sum2) (local.get $sum3))))
        (f32.store
          (i32.add (local.get $scores) (i32.shl (local.get $row) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $sum)) (f32x4.extract_lane 1 (local.get $sum)))
            (f32.add (f32x4.extract_lane 2 (local.get $sum)) (f32x4.extract_lane 3 (local.get $sum)))))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $eachRow)))))
