import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { UI_MOUNTS } from '../../api/openapi.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every route registered on the Express app, as `METHOD /openapi/{path}`. */
function registeredRoutes(): string[] {
  const stack = (testContext().app as unknown as { router: { stack: Layer[] } }).router.stack;
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route!.methods)
        .filter((m) => m !== '_all')
        .map((m) => `${m.toUpperCase()} ${layer.route!.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`),
    );
}

describe('OpenAPI document #integration', () => {
  it('when /openapi.json is fetched, then it is a valid OpenAPI 3.1.0 document of API version 1.0.0', async () => {
    const res = await api().get('/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    assert.equal(res.body.info.version, '1.0.0');
    const validator = new Validator();
    const result = await validator.validate(res.body);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
  });

  it('when the app is built, then every registered route and UI mount appears in the document', async () => {
    const doc = (await api().get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const routes = registeredRoutes();
    assert.ok(routes.length >= 10, `found ${routes.length} routes`);
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      assert.ok(doc.paths[path]?.[method.toLowerCase()], `${route} is missing from /openapi.json`);
    }
    for (const mount of UI_MOUNTS) assert.ok(doc.paths[mount.path]?.get, `${mount.path} is missing`);
  });

  it('when a route takes a body, then its schema comes from the same zod schema that validates it', async () => {
    const doc = (await api().get('/openapi.json')).body;
    const register = doc.paths['/api/sdk/agents/register'].post;
    const ref = register.requestBody.content['application/json'].schema.$ref as string;
    const schema = doc.components.schemas[ref.split('/').pop()!];
    assert.deepEqual(schema.required, ['name']);
    assert.deepEqual(Object.keys(schema.properties).sort(), ['description', 'homepage', 'name', 'skill_url']);
    assert.ok(register.responses['422'] && register.responses['429']);
    assert.deepEqual(doc.paths['/api/sdk/agents/me'].get.security, [{ agentKey: [] }]);
  });

  it('when /docs is opened, then a readable HTML page loads the document', async () => {
    const res = await api().get('/docs/');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] ?? '', /text\/html/);
    assert.match(res.text, /swagger-ui/i);
    const init = await api().get('/docs/swagger-ui-init.js');
    assert.equal(init.status, 200);
    assert.match(init.text, /\/openapi\.json/);
  });
});
