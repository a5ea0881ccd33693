import { Layout, type PageFrame } from '../layout.tsx';

/** A failure, said plainly: the same status and words as the API's problem. */
export function ErrorPage(props: { frame: PageFrame; status: number; title: string; detail: string }) {
  return (
    <Layout frame={props.frame} title={props.title}>
      <h1>{props.title}</h1>
      <p>{props.detail}</p>
      <p>
        <a href="/">Back to the catalog</a>
      </p>
    </Layout>
  );
}
