package bleveengine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/single"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"

	"github.com/paimon-pkft/pkft/internal/fulltext"
)

// ErrUnsupportedOption reports an option this engine cannot honour (for example the ngram or
// jieba tokenizers of the native engine). Such options are rejected rather than ignored, so that
// a test never silently runs with another analyzer than the one it asked for.
var ErrUnsupportedOption = errors.New("option not supported by the bleve engine")

// config is the analyzer and field configuration an archive is built with. Keys and defaults
// follow paimon-ftindex 0.1.0 (core/src/tokenizer.rs and core/src/config.rs), so that the same
// options mean the same thing to both engines wherever this engine supports them.
type config struct {
	tokenizer       string // "default", "simple", "whitespace" or "raw"
	lowerCase       bool
	stem            bool
	language        string
	removeStopWords bool
	stopWords       []string
	asciiFolding    bool
	maxTokenLength  int
	withPosition    bool
	textField       string
}

func defaultConfig() config {
	return config{
		tokenizer:       "default",
		lowerCase:       true,
		stem:            true,
		language:        "english",
		removeStopWords: true,
		asciiFolding:    true,
		maxTokenLength:  40,
		withPosition:    true,
		textField:       "text",
	}
}

// parseOptions validates options and returns the configuration they describe. Like the native
// engine it strips a "fulltext." or "tantivy." prefix and compares keys trimmed and lower-cased;
// unlike it, it rejects unknown keys, keys it cannot honour, and keys given twice.
func parseOptions(options []fulltext.Option) (config, error) {
	cfg := defaultConfig()
	seen := make(map[string]bool, len(options))
	var textFields []string
	for _, o := range options {
		key := o.Key
		if k, ok := strings.CutPrefix(key, "fulltext."); ok {
			key = k
		} else if k, ok := strings.CutPrefix(key, "tantivy."); ok {
			key = k
		}
		key = strings.ToLower(strings.TrimSpace(key))
		if seen[key] {
			return config{}, fmt.Errorf("option %q: given more than once", o.Key)
		}
		seen[key] = true
		value := strings.TrimSpace(o.Value)
		var err error
		switch key {
		case "tokenizer":
			switch v := strings.ToLower(value); v {
			case "default", "simple", "whitespace", "raw":
				cfg.tokenizer = v
			case "ngram", "jieba":
				err = fmt.Errorf("%w: tokenizer %q", ErrUnsupportedOption, v)
			default:
				err = fmt.Errorf("unsupported tokenizer %q", o.Value)
			}
		case "lower-case":
			cfg.lowerCase, err = parseBool(value)
		case "stem":
			cfg.stem, err = parseBool(value)
		case "language":
			cfg.language = strings.ToLower(value)
		case "remove-stop-words":
			cfg.removeStopWords, err = parseBool(value)
		case "stop-words":
			cfg.stopWords = nil
			for _, w := range strings.Split(o.Value, ";") {
				if w = strings.TrimSpace(w); w != "" {
					cfg.stopWords = append(cfg.stopWords, w)
				}
			}
		case "ascii-folding":
			cfg.asciiFolding, err = parseBool(value)
		case "max-token-length":
			cfg.maxTokenLength, err = parsePositive(value)
		case "with-position":
			cfg.withPosition, err = parseBool(value)
		case "text-field":
			if value == "" {
				err = errors.New("must not be empty")
			}
			textFields = []string{value}
		case "text-fields", "columns":
			textFields = nil
			for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ';' }) {
				if f = strings.TrimSpace(f); f != "" && !slices.Contains(textFields, f) {
					textFields = append(textFields, f)
				}
			}
			if len(textFields) == 0 {
				err = errors.New("must contain at least one field")
			}
		case "row-id-field":
			// The row id is the bleve document id; the field name has no other use here.
			if value == "" {
				err = errors.New("must not be empty")
			}
		default:
			if strings.HasPrefix(key, "ngram.") || strings.HasPrefix(key, "jieba.") {
				err = ErrUnsupportedOption
			} else {
				err = errors.New("unknown option")
			}
		}
		if err != nil {
			return config{}, fmt.Errorf("option %q = %q: %w", o.Key, o.Value, err)
		}
	}
	if seen["text-field"] && (seen["text-fields"] || seen["columns"]) || seen["text-fields"] && seen["columns"] {
		return config{}, errors.New("options text-field, text-fields and columns are exclusive")
	}
	switch len(textFields) {
	case 0:
	case 1:
		cfg.textField = textFields[0]
	default:
		return config{}, fmt.Errorf("%w: %d text fields %q (archives hold one text column)", ErrUnsupportedOption, len(textFields), textFields)
	}
	if !cfg.removeStopWords && len(cfg.stopWords) > 0 {
		return config{}, errors.New(`option "stop-words" requires remove-stop-words=true`)
	}
	if (cfg.stem || cfg.removeStopWords) && cfg.language != "english" && cfg.language != "en" {
		return config{}, fmt.Errorf("%w: language %q (only english stemming and stop words)", ErrUnsupportedOption, cfg.language)
	}
	return cfg, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("expected boolean, got %q", v)
}

func parsePositive(v string) (int, error) {
	n, err := strconv.ParseUint(v, 10, 31)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("expected a positive integer, got %q", v)
	}
	return int(n), nil
}

// analyzer builds the analysis chain of cfg in the native engine's order: tokenizer, remove
// long tokens, lower-case, stem, stop words, ASCII folding.
func (cfg config) analyzer() (analysis.Analyzer, error) {
	a := &analysis.DefaultAnalyzer{}
	switch cfg.tokenizer {
	case "default", "simple":
		a.Tokenizer = unicodetok.NewUnicodeTokenizer()
	case "whitespace":
		// bleve's character tokenizer (what its whitespace tokenizer is made of), splitting where
		// tantivy's WhitespaceTokenizer does: on ASCII whitespace only. bleve's own whitespace
		// tokenizer also splits on Unicode spaces (U+00A0, U+3000, ...) and \v, which the native
		// engine keeps inside tokens.
		a.Tokenizer = character.NewCharacterTokenizer(func(r rune) bool { return !isASCIIWhitespace(r) })
	case "raw":
		a.Tokenizer = single.NewSingleTokenTokenizer()
	default:
		return nil, fmt.Errorf("unsupported tokenizer %q", cfg.tokenizer)
	}
	a.TokenFilters = append(a.TokenFilters, removeLong(cfg.maxTokenLength))
	if cfg.lowerCase {
		a.TokenFilters = append(a.TokenFilters, lowercase.NewLowerCaseFilter())
	}
	if cfg.stem {
		a.TokenFilters = append(a.TokenFilters, en.NewEnglishStemmerFilter())
	}
	if cfg.removeStopWords {
		words := analysis.NewTokenMap()
		if err := words.LoadBytes(en.EnglishStopWords); err != nil {
			return nil, fmt.Errorf("load english stop words: %w", err)
		}
		for _, w := range cfg.stopWords {
			words.AddToken(w)
		}
		a.TokenFilters = append(a.TokenFilters, stop.NewStopTokensFilter(words))
	}
	if cfg.asciiFolding {
		a.TokenFilters = append(a.TokenFilters, foldTokens{asciifolding.New()})
	}
	return a, nil
}

// isASCIIWhitespace is Rust's char::is_ascii_whitespace, the split test of tantivy's
// WhitespaceTokenizer: space, tab, line feed, form feed and carriage return, not vertical tab.
func isASCIIWhitespace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// removeLong drops tokens of limit bytes or more, as tantivy's RemoveLongFilter does (it
// counts UTF-8 bytes, not characters).
type removeLong int

func (limit removeLong) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := input[:0]
	for _, t := range input {
		if len(t.Term) < int(limit) {
			out = append(out, t)
		}
	}
	return out
}

// foldTokens applies bleve's ASCII folding (a port of Lucene's ASCIIFoldingFilter, like
// tantivy's) to each token after the other filters, where tantivy applies it, instead of to the
// whole input as bleve's character filter would.
type foldTokens struct {
	f *asciifolding.AsciiFoldingFilter
}

func (f foldTokens) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if !isASCII(t.Term) {
			t.Term = f.f.Filter(t.Term)
		}
	}
	return input
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
