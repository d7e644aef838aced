/**
 * Server-side chart rendering: Vega-Lite → Vega (vega-lite `compile`), Vega → SVG (headless `View.toSVG()`,
 * no canvas package), SVG → PNG with @resvg/resvg-js (prebuilt binary from npm, system fonts for Arabic).
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { VegaLiteSpec } from './specs';

export type VegaSpec = vega.Spec;

export function compileToVega(spec: VegaLiteSpec): VegaSpec {
  return vl.compile(spec as unknown as vl.TopLevelSpec).spec as VegaSpec;
}

export async function renderSvg(vgSpec: VegaSpec): Promise<string> {
  const view = new vega.View(vega.parse(vgSpec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export function svgToPng(svg: string, scale = 2): Buffer {
  const r = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  return r.render().asPng();
}
