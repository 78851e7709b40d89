// The built renderer (Vite output) as static files. The code is shared with the team hub, which
// serves the same build (src/infra/http/static-files.ts): server and hub may both import infra,
// neither may import the other.
export {
  defaultRendererDir,
  escapeHtml,
  resolveStatic,
  serveStatic,
  type ServeStaticOptions,
  type StaticTarget,
} from '../infra/http/static-files';
