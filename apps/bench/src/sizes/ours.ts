// Our Web SDK doing the job the peers' entries do: fetch and XMLHttpRequest traced (traceparent to
// the page's origin and one API), the page's errors reported, spans and crashes batched and sent.
import { initTracing } from '@svc/sdk-web';

initTracing({
  dsn: 'https://key_web:secret@ingest.example.com/prj_shop',
  service: 'web',
  appVersion: '1.4.0',
  propagateTo: ['https://api.example.com'],
});
