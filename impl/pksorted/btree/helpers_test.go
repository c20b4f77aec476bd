package btree

import "github.com/paimon-pkft/pkft/impl/types"

func sortkeytestInt() types.DataType { return types.Int() }
