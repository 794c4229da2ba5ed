import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: Record<string, unknown>;
}
interface ResponseObject {
  content?: Record<string, { schema: unknown }>;
}

const DOCUMENT_ID = 'https://openapi.invalid/published.json';
const intoDocument = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`));

/**
 * Checks answers against the response schemas of a published OpenAPI 3.1 document, as a generated
 * client would read them: `conformanceErrors` lists every way a body departs from the schema of its
 * route and status (empty when it conforms).
 */
export function publishedSchema(doc: OpenApiDocument) {
  // OpenAPI 3.1 schemas are JSON Schema 2020-12 plus a few annotation keywords (example, …).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The components are compiled once, as a schema of their own that response schemas refer into.
  ajv.addSchema({ $id: DOCUMENT_ID, components: doc.components });
  const compiled = new Map<string, ValidateFunction>();

  function validatorFor(method: string, path: string, status: number): ValidateFunction {
    const key = `${method} ${path} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      const operation = doc.paths[path]?.[method];
      if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
      const response = operation.responses[String(status)];
      const schema = response?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${method.toUpperCase()} ${path} publishes no JSON body for ${status}`);
      // Refs point at #/components/…, i.e. into the document added above.
      validate = ajv.compile({ allOf: [intoDocument(schema)] });
      compiled.set(key, validate);
    }
    return validate;
  }

  return {
    conformanceErrors(method: string, path: string, status: number, body: unknown): string[] {
      const validate = validatorFor(method, path, status);
      if (validate(body)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} (${e.schemaPath})`);
    },
  };
}
