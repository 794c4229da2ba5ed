import type { Express } from 'express';

export interface MountedRoute {
  method: string;
  /** The Express path, e.g. `/admin/skills/:slug/review`. */
  path: string;
}

interface Layer {
  rawPath?: string;
  route?: { path: string | string[]; methods: Record<string, boolean> };
  /** A router (its stack), or an Express app used as a handler (bull-board's), with its own router. */
  handle: { stack?: Layer[]; router?: { stack: Layer[] } };
}

/**
 * Every route the app serves under `prefix`, read off its routers (mounted routers included): the
 * console's forms and bull-board's API are not rows of the endpoint table, and a new one is
 * attacked with no new test.
 */
export function mountedRoutes(app: Express, prefix: string): MountedRoute[] {
  const found: MountedRoute[] = [];
  const walk = (stack: Layer[], base: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const path of ([] as string[]).concat(layer.route.path))
          for (const method of Object.keys(layer.route.methods))
            if (method !== '_all') found.push({ method, path: `${base}${path === '/' ? '' : path}` || '/' });
      } else {
        const inner = layer.handle.stack ?? layer.handle.router?.stack;
        const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
        if (inner) walk(inner, `${base}${mount}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return found.filter((r) => r.path === prefix || r.path.startsWith(`${prefix}/`));
}

export const isWrite = (r: MountedRoute) => !['get', 'head', 'options'].includes(r.method);

/** A concrete path for a route template: every parameter gets a value no handler knows. */
export const concretePath = (r: MountedRoute) => r.path.replace(/:(\w+)/g, 'sample');
