package htmlreport

import "html"

// obj and arr keep the ECharts options readable; encoding/json sorts map keys,
// so the output is the same for the same input.
type (
	obj = map[string]any
	arr = []any
)

// palette is ECharts' own, set explicitly so that whiskers and lines can
// share a colour.
var palette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

func color(i int) string { return palette[i%len(palette)] }

const (
	fontFamily = `system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif`
	muted      = "#636c76"
	gridLine   = "#eaeef2"
	barGap     = "30%" // page.js: BAR_GAP
	barCatGap  = "20%" // page.js: CATEGORY_GAP

	barMaxWidth = 64
)

// base returns the options every chart shares: no animation (the page
// reports "drawn" sooner and screenshots are complete), the palette, fonts.
func base() obj {
	return obj{
		"animation": false,
		"color":     palette,
		"textStyle": obj{"fontFamily": fontFamily, "fontSize": 12},
		"grid":      obj{"left": 16, "right": 24, "top": 48, "bottom": 30, "containLabel": true},
		"legend":    obj{"top": 8, "type": "scroll", "textStyle": text(12, "#1f2328")},
	}
}

// text is a text style. The font family is set on every label, not only in
// the global textStyle: ECharts measures axis labels (containLabel) with the
// label's own font, and a mismatch clips long labels.
func text(size int, colour string) obj {
	return obj{"fontFamily": fontFamily, "fontSize": size, "color": colour}
}

func axisText(colour string) obj { return text(12, colour) }

func valueAxis(name string) obj {
	return obj{
		"type": "value", "name": name, "nameTextStyle": text(12, muted),
		"axisLabel": axisText(muted), "splitLine": obj{"lineStyle": obj{"color": gridLine}},
	}
}

func logAxis(name string) obj {
	a := valueAxis(name)
	a["type"] = "log"
	a["logBase"] = 10
	return a
}

func categoryAxis(name string, cats []string) obj {
	return obj{
		"type": "category", "name": name, "data": cats, "nameTextStyle": text(12, muted),
		"axisLabel": with(axisText("#1f2328"), "interval", 0),
		"axisTick":  obj{"alignWithLabel": true},
	}
}

// whiskers is a custom series drawing 95 % intervals: data items are
// [at, lo, hi, slot, slots] (see page.js errorBars).
func whiskers(name, renderer string, colour string, data arr, horizontal bool) obj {
	enc := obj{"x": 0, "y": arr{1, 2}}
	if horizontal {
		enc = obj{"x": arr{1, 2}, "y": 0}
	}
	return obj{
		"type": "custom", "name": name, "renderItem": renderer, "silent": true, "z": 10,
		"itemStyle": obj{"color": colour}, "encode": enc, "data": data,
	}
}

// tip is an item tooltip text, escaped here because ECharts shows it as HTML.
func tip(lines ...string) string {
	out := ""
	for i, l := range lines {
		if i > 0 {
			out += "<br>"
		}
		out += html.EscapeString(l)
	}
	return out
}

// with returns o with k set to v.
func with(o obj, kv ...any) obj {
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i].(string)] = kv[i+1]
	}
	return o
}

// bottomAxis puts an x axis's name under its labels, centred, where it
// cannot collide with the last label or a second y axis.
func bottomAxis(a obj) obj {
	return with(a, "nameLocation", "middle", "nameGap", 26)
}
