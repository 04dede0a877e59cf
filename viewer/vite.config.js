// Builds the viewer into one self-contained file, dist/index.html: the
// bundled script and style are written into the page itself. Browsers
// refuse module scripts fetched from file:// pages, so a page with separate
// asset files would only work from a server; one file works from disk too.
import { defineConfig } from 'vite';

// After bundling: each <script src> / <link href> of the page that names a
// bundled chunk or stylesheet is replaced by its content, and the asset is
// dropped from the output.
function inlineIntoPage() {
  return {
    name: 'tessera-inline-into-page',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const page = Object.values(bundle).find((f) => f.type === 'asset' && f.fileName.endsWith('.html'));
      if (!page) return;
      let html = String(page.source);
      for (const [fileName, file] of Object.entries(bundle)) {
        if (file === page) continue;
        const escaped = fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (file.type === 'chunk') {
          const tag = new RegExp(`<script[^>]*src="[^"]*${escaped}"[^>]*></script>`);
          // "</script" inside the code would end the element early.
          const code = file.code.replace(/<\/script/gi, '<\\/script');
          html = html.replace(tag, () => `<script type="module">${code}</script>`);
          delete bundle[fileName];
        } else if (fileName.endsWith('.css')) {
          const tag = new RegExp(`<link[^>]*href="[^"]*${escaped}"[^>]*>`);
          html = html.replace(tag, () => `<style>${String(file.source)}</style>`);
          delete bundle[fileName];
        }
      }
      page.source = html;
    },
  };
}

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    cssCodeSplit: false,
    chunkSizeWarningLimit: 2000,
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
  plugins: [inlineIntoPage()],
});
