package faultio

// Points returns the injection points of an operation whose fault-free run made counts: for each
// kind of operation it made and each mode, k = 1..count. With limit > 0 at most limit points per
// (kind, mode) are kept, spread evenly over 1..count and including the first and the last (with
// limit 1: the middle one).
func Points(counts Counts, modes []Mode, limit int) []Point {
	var out []Point
	for _, op := range Ops {
		n := counts[op]
		if n == 0 {
			continue
		}
		for _, mode := range modes {
			for _, k := range pick(n, limit) {
				out = append(out, Point{Op: op, K: k, Mode: mode})
			}
		}
	}
	return out
}

// pick returns 1..n, or limit of them spread evenly (first and last included).
func pick(n, limit int) []int {
	if limit <= 0 || n <= limit {
		ks := make([]int, n)
		for i := range ks {
			ks[i] = i + 1
		}
		return ks
	}
	if limit == 1 {
		return []int{(n + 1) / 2}
	}
	ks := make([]int, 0, limit)
	for i := 0; i < limit; i++ {
		k := 1 + i*(n-1)/(limit-1)
		if len(ks) == 0 || ks[len(ks)-1] != k {
			ks = append(ks, k)
		}
	}
	return ks
}

// Enumerate drives an operation through every k of one kind of operation: it arms f at
// Point{op, k, mode} for k = 1, 2, ... and calls run, which must run the operation on a fresh
// copy of its table through f and check the outcome. It stops when a run completes without
// reaching its point (k is past the operation's last op of that kind), when run returns an error
// (returned), or after max points when max > 0. It returns the points injected.
func Enumerate(f *FS, op Op, mode Mode, max int, run func(p Point) error) ([]Point, error) {
	var done []Point
	for k := 1; max <= 0 || k <= max; k++ {
		p := Point{Op: op, K: k, Mode: mode}
		f.Arm(p)
		err := run(p)
		fired := f.Fired()
		f.Disarm()
		if err != nil {
			return done, err
		}
		if !fired {
			return done, nil
		}
		done = append(done, p)
	}
	return done, nil
}
