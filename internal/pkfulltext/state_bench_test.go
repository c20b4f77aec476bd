package pkfulltext_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/paimon-pkft/pkft/internal/pkfulltext"
	"github.com/paimon-pkft/pkft/internal/testing/paimonparquet"
	"github.com/paimon-pkft/pkft/internal/testing/pkfulltexttest"
)

// BenchmarkRestoreDecision times a restored bucket's decision (classification and planning,
// InspectBucket) for the buckets of pkfulltexttest.Bucket (the cross-language bench's) of 1,000,
// 10,000 and 100,000 files and 100 archives, and checks the
// decision: levels 1-4 current, the other 96 archives stale, level 5 rebuilt from its files.
// Besides wall time it reports the process CPU time per decision (cpu-ns/op), which includes
// the garbage collector's background work, as the cross-language bench measures it.
func BenchmarkRestoreDecision(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			files, archives, err := pkfulltexttest.Bucket(n)
			if err != nil {
				b.Fatal(err)
			}
			payloads := pkfulltexttest.Payloads(archives)
			b.ReportAllocs()
			cpu := processCPU(b)
			for b.Loop() {
				v, err := pkfulltext.InspectBucket(paimonparquet.DefaultTextFieldID, files, payloads)
				if err != nil {
					b.Fatal(err)
				}
				if v.Plan == nil || v.Plan.DataLevel() != 5 || len(v.Plan.SourceFiles()) != n/5 ||
					len(v.State.CurrentPayloads()) != 4 || len(v.State.StalePayloads()) != pkfulltexttest.Archives-4 {
					b.Fatalf("unexpected decision for %d files", n)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the user and system CPU time the process has used.
func processCPU(tb testing.TB) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
