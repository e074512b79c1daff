package hostsimd

// dotsI8Wide16 is the int8 scoring of the levels whose row kernel steps
// 16 bytes at a time (AVX2's VPMADDWD, NEON's SDOT): for each block of up
// to int8Block rows from row i, rows(i, m) fills out[2j] = Σ q_k·v_k and
// out[2j+1] = Σ v_k² of row i+j over k < d&^15 (the kernel is not called
// when d < 16), and the last d%16 products of each row are added here.
// rows writes into out, which the caller owns, so that neither escapes.
func dotsI8Wide16(q *int8Query, v []int8, n int, dot, ss []int32, out *[2 * int8Block]int32, rows func(i, m int)) {
	d := len(q.c)
	full := d &^ 15
	for i := 0; i < n; i += int8Block {
		m := min(int8Block, n-i)
		if full > 0 {
			rows(i, m)
		}
		for j := 0; j < m; j++ {
			a, b := out[2*j], out[2*j+1]
			if full == 0 {
				a, b = 0, 0
			}
			row := v[(i+j)*d : (i+j+1)*d]
			for k := full; k < d; k++ {
				a += int32(q.c[k]) * int32(row[k])
				b += int32(row[k]) * int32(row[k])
			}
			dot[i+j], ss[i+j] = a, b
		}
	}
}
