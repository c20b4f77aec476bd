// Package corpus generates deterministic multilingual text corpora for engine and conformance
// tests: English, Chinese, accented Latin and emoji, with null rows, from a seed.
package corpus

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Row is one corpus row; Null rows carry no text and are not indexed, but keep their row id.
type Row struct {
	ID   int64
	Text string
	Null bool
}

var (
	english = []string{"apache", "paimon", "lake", "table", "stream", "batch", "index", "search",
		"archive", "bucket", "level", "compaction", "primary", "key", "snapshot", "manifest",
		"river", "mountain", "quick", "brown", "fox", "jumps", "lazy", "dog", "storage", "engine"}
	chinese = []string{"数据", "湖", "全文", "索引", "检索", "中文", "分词", "压缩", "快照", "表格",
		"流式", "批量", "存储", "引擎", "北京", "上海"}
	accented = []string{"café", "naïve", "résumé", "über", "façade", "jalapeño", "crème", "brûlée",
		"São", "Paulo", "Zürich", "ångström"}
	emoji = []string{"🚀", "🌊", "📚", "🔍", "😀", "🎉"}
)

// Generate returns n rows from seed. About one row in twelve is null; texts mix the four
// vocabularies so that every analyzer has something to split.
func Generate(seed uint64, n int) []Row {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rows := make([]Row, n)
	for i := range rows {
		rows[i].ID = int64(i)
		if r.IntN(12) == 0 {
			rows[i].Null = true
			continue
		}
		words := 3 + r.IntN(10)
		var b strings.Builder
		for w := 0; w < words; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			switch k := r.IntN(10); {
			case k < 5:
				word := english[r.IntN(len(english))]
				if r.IntN(6) == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
			case k < 7:
				b.WriteString(chinese[r.IntN(len(chinese))])
				if r.IntN(2) == 0 {
					b.WriteString(chinese[r.IntN(len(chinese))])
				}
			case k < 9:
				b.WriteString(accented[r.IntN(len(accented))])
			default:
				b.WriteString(emoji[r.IntN(len(emoji))])
			}
		}
		rows[i].Text = b.String()
	}
	return rows
}

// Vocabulary returns every word the generator draws from, for building queries.
func Vocabulary() (englishWords, chineseWords, accentedWords, emojiWords []string) {
	return slices.Clone(english), slices.Clone(chinese), slices.Clone(accented), slices.Clone(emoji)
}
