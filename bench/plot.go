package bench

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// The plots are drawn with gonum.org/v1/plot: PNG for viewing, SVG for
// documents (both from the same drawing).

const plotW, plotH = 16 * vg.Centimeter, 10 * vg.Centimeter

// savePlot writes p as dir/name.png and dir/name.svg and adds name to the
// table's plots.
func (t *Table) savePlot(p *plot.Plot, dir, name string) error {
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(plotW, plotH, filepath.Join(dir, name+ext)); err != nil {
			return fmt.Errorf("plot %s%s: %w", name, ext, err)
		}
	}
	t.Plots = append(t.Plots, name)
	return nil
}

// series is one named line: points in order.
type series struct {
	name string
	xys  plotter.XYs
	dash bool // a reference (the paper's), drawn dashed
}

// legend places a plot's legend where the lines leave room.
type legend struct{ top, left bool }

// linePlot draws lines, one per series, on log axes when logX and logY.
func linePlot(title, xLabel, yLabel string, logX, logY bool, at legend, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Legend.Top, p.Legend.Left = at.top, at.left
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), vg.Points(6)
	if at.left {
		p.Legend.XOffs = vg.Points(6)
	}
	if at.top {
		p.Legend.YOffs = -vg.Points(6)
	}
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	return p, nil
}

// bars is one group of bars: a value per category.
type bars struct {
	name   string
	values []float64
}

// barPlot draws grouped bars: one group per category, one bar per series
// (a series with fewer values than categories has bars for the first
// ones only). The legend sits above the tallest bar.
func barPlot(title, yLabel string, categories []string, groups []bars) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = title, yLabel
	p.Legend.Top = true
	top := 0.0
	for _, g := range groups {
		for _, v := range g.values {
			top = math.Max(top, v)
		}
	}
	p.Y.Min, p.Y.Max = 0, top*(1.1+0.08*float64(len(groups)))
	// Three quarters of each category's width (about 390 points in all)
	// for its group, at most 20 points a bar.
	w := vg.Points(math.Min(20, 0.75*390/float64(len(categories))/float64(len(groups))))
	for i, g := range groups {
		b, err := plotter.NewBarChart(plotter.Values(g.values), w)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Color = color.Gray{Y: 80}
		b.Offset = w * vg.Length(float64(i)-float64(len(groups)-1)/2)
		p.Add(b)
		p.Legend.Add(g.name, b)
	}
	p.NominalX(categories...)
	for _, c := range categories {
		if len(c) > 8 { // long names: slanted, so that they do not overlap
			p.X.Tick.Label.Rotation, p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = 0.6, -1, -0.5
			break
		}
	}
	return p, nil
}

// cdf returns the empirical CDF of sorted values (at most max points,
// evenly spaced in rank, the last always included), values clamped to a
// positive floor so that a log axis can show them.
func cdf(sorted []float64, max int) plotter.XYs {
	n := len(sorted)
	step := 1
	if n > max {
		step = (n + max - 1) / max
	}
	var xys plotter.XYs
	for i := 0; i < n; i += step {
		xys = append(xys, plotter.XY{X: math.Max(sorted[i], 1e-3), Y: float64(i+1) / float64(n)})
	}
	if n > 0 && (n-1)%step != 0 {
		xys = append(xys, plotter.XY{X: math.Max(sorted[n-1], 1e-3), Y: 1})
	}
	return xys
}
