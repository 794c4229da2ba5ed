import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import express, { type RequestHandler } from 'express';

/** The dashboard's own stylesheet and scripts (plain files: no build step). */
const OWN_DIR = resolve(import.meta.dirname, 'assets');
/** uPlot's distributed files, served from the installed package: no CDN, no copy in the repository. */
const UPLOT_DIR = resolve(dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');

const versionOf = (file: string) =>
  createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);

/**
 * URLs carry a hash of the file, so the files can be cached for a year: a new version is a new URL.
 * Computed once per process (the files do not change under a running server).
 */
const urls = new Map<string, string>();
function versioned(mount: string, dir: string, name: string): string {
  const key = `${mount}/${name}`;
  let url = urls.get(key);
  if (!url) {
    url = `${key}?v=${versionOf(resolve(dir, name))}`;
    urls.set(key, url);
  }
  return url;
}

export const ASSETS = {
  css: () => versioned('/assets/web', OWN_DIR, 'dashboard.css'),
  chartScript: () => versioned('/assets/web', OWN_DIR, 'market-chart.js'),
  uplotCss: () => versioned('/assets/uplot', UPLOT_DIR, 'uPlot.min.css'),
  uplotScript: () => versioned('/assets/uplot', UPLOT_DIR, 'uPlot.iife.min.js'),
};

const longLived = { immutable: true, maxAge: '365d', index: false } as const;

/** Static routes for the dashboard's files (an unknown file falls through to the JSON 404). */
export function assetRoutes(): [string, RequestHandler][] {
  return [
    ['/assets/web', express.static(OWN_DIR, longLived)],
    ['/assets/uplot', express.static(UPLOT_DIR, longLived)],
  ];
}
