package btree

import "github.com/paimon-pkft/pkft/internal/types"

func sortkeytestInt() types.DataType { return types.Int() }
