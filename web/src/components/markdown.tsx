import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** Model-written Markdown: GitHub-flavoured, never raw HTML (react-markdown escapes it). */
export function Markdown({ children }: { children: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml>
        {children}
      </ReactMarkdown>
    </div>
  );
}
