package paths

import (
	"fmt"
	"sync/atomic"

	"github.com/google/uuid"
)

// DirIndexPathFactory names index files index-{uuid}-{N} in one directory outside any table's
// layout: for archives built to inspect or compare (a harness, a tool), never for the archives a
// table references, whose paths come from FileStorePathFactory.
type DirIndexPathFactory struct {
	dir  string
	uuid string
	n    atomic.Int64
}

var _ IndexPathFactory = (*DirIndexPathFactory)(nil)

// NewDirIndexPathFactory returns a factory for new index files in dir.
func NewDirIndexPathFactory(dir string) *DirIndexPathFactory {
	return &DirIndexPathFactory{dir: dir, uuid: uuid.NewString()}
}

// NewPath implements IndexPathFactory.
func (d *DirIndexPathFactory) NewPath() string {
	return d.ToPath(fmt.Sprintf("%s%s-%d", IndexPrefix, d.uuid, d.n.Add(1)-1))
}

// ToPath implements IndexPathFactory: name in the factory's directory.
func (d *DirIndexPathFactory) ToPath(fileName string) string { return Join(d.dir, fileName) }

// ToPathOf implements IndexPathFactory: the external path when recorded, otherwise ToPath.
func (d *DirIndexPathFactory) ToPathOf(fileName, externalPath string) string {
	if externalPath != "" {
		return Normalize(externalPath)
	}
	return d.ToPath(fileName)
}

// IsExternalPath implements IndexPathFactory: files stay in the directory, nothing external is
// recorded.
func (d *DirIndexPathFactory) IsExternalPath() bool { return false }
