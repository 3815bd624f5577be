// swagger-ui-dist ships no types; the sandbox only asks it where its static files are.
declare module 'swagger-ui-dist/absolute-path.js' {
  /** The folder holding swagger-ui-bundle.js and swagger-ui.css. */
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
