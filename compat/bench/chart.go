package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// seriesColor is the bar colour of a series: grey for the engine, blue for Go (green for Go with
// two workers), red for Java.
func seriesColor(name string) color.RGBA {
	switch {
	case strings.HasPrefix(name, "engine"):
		return color.RGBA{0x88, 0x88, 0x88, 0xff}
	case strings.HasPrefix(name, "Java"):
		return color.RGBA{0xd6, 0x27, 0x28, 0xff}
	case strings.Contains(name, "2 workers"):
		return color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	}
	return color.RGBA{0x1f, 0x77, 0xb4, 0xff}
}

// panel is one grouped bar chart: for each group, one bar per series.
type panel struct {
	title  string
	unit   string
	series []string
	groups []string
	values [][]float64 // values[group][series]
	log    bool        // log10 scale (for values spanning decades)
}

// Chart draws the report as a PNG: build rates, restore decision times and maintenance times,
// one panel each.
func (r *Report) Chart(w io.Writer) error {
	var panels []panel
	if len(r.Builds) > 0 {
		p := panel{title: "Archive build of one level (rows/s, higher is better)", unit: "rows/s", series: []string{"engine from memory", "Go from Parquet", "Java PkFullTextIndexFile"}}
		for _, b := range r.Builds {
			p.groups = append(p.groups, count(b.Rows)+" "+b.Analyzer)
			p.values = append(p.values, []float64{ratio(float64(b.Rows), b.Engine), ratio(float64(b.Rows), b.Go), ratio(float64(b.Rows), b.Java)})
		}
		panels = append(panels, p)
	}
	if len(r.States) > 0 {
		p := panel{title: "Bucket restore decision, state + plan, process CPU time (microseconds, log scale, lower is better)", unit: "us", log: true, series: []string{"Go", "Java"}}
		for _, s := range r.States {
			p.groups = append(p.groups, fmt.Sprintf("%s files", count(s.Files)))
			p.values = append(p.values, []float64{s.GoCPU * 1e6, s.JavaCPU * 1e6})
		}
		panels = append(panels, p)
	}
	if m := r.Maintain; m != nil {
		panels = append(panels, panel{
			title:  fmt.Sprintf("Maintenance of %d buckets, %s rows (seconds, lower is better)", m.Buckets, count(m.Rows)),
			unit:   "s",
			series: []string{"Go 1 worker", "Go 2 workers", "Java"},
			groups: []string{"maintain"},
			values: [][]float64{{m.Go1, m.Go2, m.Java}},
		})
	}
	if len(panels) == 0 {
		return fmt.Errorf("nothing to draw")
	}
	const width, panelHeight = 900, 260
	img := image.NewRGBA(image.Rect(0, 0, width, panelHeight*len(panels)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for i, p := range panels {
		p.draw(img, image.Rect(0, i*panelHeight, width, (i+1)*panelHeight))
	}
	return png.Encode(w, img)
}

func (p panel) draw(img *image.RGBA, area image.Rectangle) {
	black := color.RGBA{0, 0, 0, 0xff}
	text(img, area.Min.X+10, area.Min.Y+16, p.title, black)
	// Legend.
	x := area.Min.X + 10
	for _, s := range p.series {
		fill(img, image.Rect(x, area.Min.Y+24, x+10, area.Min.Y+34), seriesColor(s))
		text(img, x+14, area.Min.Y+34, s, black)
		x += 24 + 7*len(s)
	}
	plot := image.Rect(area.Min.X+70, area.Min.Y+44, area.Max.X-10, area.Max.Y-24)
	maxV, minV := 0.0, math.Inf(1)
	for _, g := range p.values {
		for _, v := range g {
			maxV = max(maxV, v)
			if v > 0 {
				minV = min(minV, v)
			}
		}
	}
	if maxV <= 0 {
		return
	}
	scale := func(v float64) float64 { return v / maxV }
	lo, hi := 0.0, maxV
	if p.log {
		lo, hi = math.Floor(math.Log10(minV)), math.Ceil(math.Log10(maxV))
		if hi <= lo {
			hi = lo + 1
		}
		scale = func(v float64) float64 {
			if v <= 0 {
				return 0
			}
			return (math.Log10(v) - lo) / (hi - lo)
		}
	}
	// Axis and gridlines: five ticks (or one per decade).
	grey := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	ticks := []float64{0, 0.25, 0.5, 0.75, 1}
	if p.log {
		ticks = nil
		for d := lo; d <= hi; d++ {
			ticks = append(ticks, (d-lo)/(hi-lo))
		}
	}
	for _, t := range ticks {
		y := plot.Max.Y - int(t*float64(plot.Dy()))
		fill(img, image.Rect(plot.Min.X, y, plot.Max.X, y+1), grey)
		v := t * hi
		if p.log {
			v = math.Pow(10, lo+t*(hi-lo))
		}
		text(img, area.Min.X+4, y+4, short(v), black)
	}
	fill(img, image.Rect(plot.Min.X, plot.Min.Y, plot.Min.X+1, plot.Max.Y), black)
	fill(img, image.Rect(plot.Min.X, plot.Max.Y, plot.Max.X, plot.Max.Y+1), black)
	groupW := plot.Dx() / len(p.groups)
	barW := min(40, (groupW-20)/len(p.series))
	for gi, g := range p.values {
		gx := plot.Min.X + gi*groupW + (groupW-barW*len(p.series))/2
		for si, v := range g {
			h := int(scale(v) * float64(plot.Dy()))
			r := image.Rect(gx+si*barW+1, plot.Max.Y-h, gx+(si+1)*barW-1, plot.Max.Y)
			fill(img, r, seriesColor(p.series[si]))
			if v > 0 {
				text(img, r.Min.X, r.Min.Y-2, short(v), black)
			}
		}
		label := p.groups[gi]
		text(img, plot.Min.X+gi*groupW+(groupW-7*len(label))/2, plot.Max.Y+16, label, black)
	}
}

// short renders a value in at most about five characters.
func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.3g", v)
	}
	return fmt.Sprintf("%.2g", v)
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := &font.Drawer{Dst: img, Src: &image.Uniform{C: c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
