package pkfulltext

import (
	"testing"

	"github.com/paimon-pkft/pkft/internal/fulltext"
	"github.com/paimon-pkft/pkft/internal/fulltext/native"
	"github.com/paimon-pkft/pkft/internal/testing/testenv"
)

func nativeLib(t testing.TB) *native.Library { return testenv.Native(t) }

func nativeEngine(lib *native.Library) fulltext.Engine { return native.Engine{Lib: lib} }
