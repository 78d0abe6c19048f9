import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The server serves web/dist at `/`; `npm run dev -w web` proxies the API to a local server.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: { '/api': process.env.KEYWARD_API ?? 'http://localhost:3000' },
  },
});
