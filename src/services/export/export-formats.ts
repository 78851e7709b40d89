// The export formats: the domain's one list (docs/architecture.md §3).
export { EXPORT_FORMATS, type ExportFormat } from '../../shared/domain';
