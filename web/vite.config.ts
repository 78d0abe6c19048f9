import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const api = process.env.KEYWARD_API ?? 'http://localhost:3000';

// The server serves web/dist at `/`; `npm run dev -w web` proxies the API to a local server.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: {
      '/api': {
        target: api,
        // The server refuses a signed-in change whose Origin is not BASE_URL's (docs/security.md): the dev page's
        // requests are presented as the server's own, as the built dashboard's are.
        configure: (proxy) =>
          proxy.on('proxyReq', (request) => {
            if (request.getHeader('origin')) request.setHeader('origin', new URL(api).origin);
          }),
      },
    },
  },
});
