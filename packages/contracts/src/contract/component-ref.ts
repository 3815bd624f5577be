/**
 * The `$ref` of a component of the OpenAPI document.
 *
 * @example
 * ref('schemas', 'SessionDetails') // { $ref: '#/components/schemas/SessionDetails' }
 */
export function ref(kind: 'schemas' | 'responses' | 'headers', name: string): { $ref: string } {
  return { $ref: `#/components/${kind}/${name}` };
}
